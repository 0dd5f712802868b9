"""The asyncapi exporter keeps the exporter contract (streamt_testing.contracts)."""

from __future__ import annotations

import pytest
from streamt_testing.contracts import ExporterContract


class TestAsyncapiExporter(ExporterContract):
    @pytest.fixture
    def exporter_args(self) -> list[str]:
        return ["docs", "asyncapi"]

    @pytest.fixture
    def output_option(self) -> None:
        return None  # docs asyncapi writes to stdout only
