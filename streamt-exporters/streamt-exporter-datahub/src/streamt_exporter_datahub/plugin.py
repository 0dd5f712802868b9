"""streamt plugin: the ``docs datahub`` exporter (DataHub v1.7.0 simplified MCP JSON)."""

from __future__ import annotations

from typing import Any

from streamt.sdk import ErrorCode, Exporter, hookimpl

from streamt_exporter_datahub.codes import DATAHUB_INVALID


def _command() -> Any:
    from streamt_exporter_datahub.command import datahub_command

    return datahub_command


@hookimpl
def streamt_exporters() -> list[Exporter]:
    return [
        Exporter(
            name="datahub",
            group="docs",
            description="Export DataHub metadata-file proposals.",
            command_factory=_command,
        ),
    ]


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    return [DATAHUB_INVALID]
