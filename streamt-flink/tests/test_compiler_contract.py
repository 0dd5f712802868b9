"""streamt-flink's compiler keeps the compiler contract (streamt_testing.contracts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_material import SHARED
from streamt_testing.contracts import CompilerContract


class TestFlinkCompiler(CompilerContract):
    @pytest.fixture
    def compiler_project(self) -> Path:
        return SHARED / "spec" / "examples" / "payments-pipeline"

    @pytest.fixture
    def compiler_kinds(self) -> list[str]:
        return ["flink_job"]
