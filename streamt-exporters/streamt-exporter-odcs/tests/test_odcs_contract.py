"""The odcs exporter keeps the exporter contract (streamt_testing.contracts)."""

from __future__ import annotations

import pytest
from streamt_testing.contracts import ExporterContract


class TestOdcsExporter(ExporterContract):
    @pytest.fixture
    def exporter_args(self) -> list[str]:
        return ["docs", "odcs", "--contract-id", "shop", "--status", "active"]
