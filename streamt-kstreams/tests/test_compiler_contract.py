"""streamt-kstreams's compiler keeps the compiler contract (streamt_testing.contracts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_material import SHARED
from streamt_testing.contracts import CompilerContract


class TestKstreamsCompiler(CompilerContract):
    @pytest.fixture
    def compiler_project(self) -> Path:
        return SHARED / "spec" / "examples" / "kafka-streams"

    @pytest.fixture
    def compiler_kinds(self) -> list[str]:
        return ["kafka_streams_job"]
