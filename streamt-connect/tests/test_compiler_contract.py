"""streamt-connect's compiler keeps the compiler contract (streamt_testing.contracts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_material import SHARED
from streamt_testing.contracts import CompilerContract


class TestConnectCompiler(CompilerContract):
    @pytest.fixture
    def compiler_project(self) -> Path:
        return SHARED / "spec" / "examples" / "payments-pipeline"

    @pytest.fixture
    def compiler_kinds(self) -> list[str]:
        return ["connector"]
