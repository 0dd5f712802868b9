"""streamt plugin: the ``docs openlineage`` exporter (static OpenLineage design metadata as JSON Lines)."""

from __future__ import annotations

from typing import Any

from streamt.sdk import Exporter, hookimpl


def _command() -> Any:
    from streamt_exporter_openlineage.command import openlineage_command

    return openlineage_command


@hookimpl
def streamt_exporters() -> list[Exporter]:
    return [
        Exporter(
            name="openlineage",
            group="docs",
            description="Export OpenLineage design metadata.",
            command_factory=_command,
        ),
    ]
