"""`docs datahub --help` lists the fabrics --fabric accepts."""

from __future__ import annotations

from streamt_exporter_datahub.fabrics import FABRICS


def test_help_lists_every_fabric(streamt_cli_text) -> None:
    text = " ".join(streamt_cli_text("docs", "datahub", "--help").stdout.split())
    assert f"one of: {', '.join(FABRICS)}." in text
