"""streamt-kafka's compiler keeps the compiler contract (streamt_testing.contracts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamt_testing.contracts import CompilerContract


class TestKafkaCompiler(CompilerContract):
    @pytest.fixture
    def compiler_project(self) -> Path:
        return Path(__file__).resolve().parents[2] / "examples" / "kafka-quickstart"

    @pytest.fixture
    def compiler_kinds(self) -> list[str]:
        return ["topic", "schema"]
