"""streamt-gateway's compiler keeps the compiler contract (streamt_testing.contracts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_material import SHARED
from streamt_testing.contracts import CompilerContract


class TestGatewayCompiler(CompilerContract):
    @pytest.fixture
    def compiler_project(self) -> Path:
        return SHARED / "spec" / "examples" / "ownership-gateway"

    @pytest.fixture
    def compiler_kinds(self) -> list[str]:
        return ["gateway_rule"]
