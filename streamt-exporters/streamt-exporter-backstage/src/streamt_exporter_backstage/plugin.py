"""streamt plugin: the ``docs backstage`` exporter (Backstage Software Catalog entities as YAML)."""

from __future__ import annotations

from typing import Any

from streamt.sdk import ErrorCode, Exporter, hookimpl

from streamt_exporter_backstage.codes import BACKSTAGE_INVALID


def _command() -> Any:
    from streamt_exporter_backstage.command import backstage_command

    return backstage_command


@hookimpl
def streamt_exporters() -> list[Exporter]:
    return [
        Exporter(
            name="backstage",
            group="docs",
            description="Export Backstage Software Catalog entities.",
            command_factory=_command,
        ),
    ]


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    return [BACKSTAGE_INVALID]
