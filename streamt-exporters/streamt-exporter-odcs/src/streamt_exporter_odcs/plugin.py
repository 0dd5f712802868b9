"""streamt plugin: the ``docs odcs`` exporter (one ODCS v3.1.0 data contract per project)."""

from __future__ import annotations

from typing import Any

from streamt.sdk import ErrorCode, Exporter, hookimpl

from streamt_exporter_odcs.codes import ODCS_INVALID


def _command() -> Any:
    from streamt_exporter_odcs.command import odcs_command

    return odcs_command


@hookimpl
def streamt_exporters() -> list[Exporter]:
    return [
        Exporter(
            name="odcs",
            group="docs",
            description="Generate an ODCS 3.1.0 data contract.",
            command_factory=_command,
        ),
    ]


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    return [ODCS_INVALID]
