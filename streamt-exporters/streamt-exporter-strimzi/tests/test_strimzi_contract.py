"""The strimzi exporter keeps the exporter contract (streamt_testing.contracts)."""

from __future__ import annotations

import pytest
from streamt_testing.contracts import ExporterContract


class TestStrimziExporter(ExporterContract):
    @pytest.fixture
    def exporter_args(self) -> list[str]:
        return ["export", "strimzi", "--namespace", "kafka", "--cluster-name", "main"]
