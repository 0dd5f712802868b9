"""streamt plugin: the ``docs datahub`` exporter (DataHub v1.7.0 simplified MCP JSON)."""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter


def _command() -> Any:
    from streamt_exporter_datahub.command import datahub_command

    return datahub_command


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="datahub",
            group="docs",
            description="Export DataHub metadata-file proposals.",
            command_factory=_command,
        ),
    ]
