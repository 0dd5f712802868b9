"""The backstage exporter keeps the exporter contract (streamt_testing.contracts)."""

from __future__ import annotations

import pytest
from streamt_testing.contracts import ExporterContract


class TestBackstageExporter(ExporterContract):
    @pytest.fixture
    def exporter_args(self) -> list[str]:
        return [
            "docs",
            "backstage",
            "--catalog-id",
            "shop",
            "--catalog-namespace",
            "default",
            "--default-owner-ref",
            "group:default/platform",
            "--lifecycle",
            "production",
            "--kafka-cluster-ref",
            "resource:platform/kafka-prod",
        ]
