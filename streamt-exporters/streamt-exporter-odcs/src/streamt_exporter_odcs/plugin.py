"""streamt plugin: the ``docs odcs`` exporter (one ODCS v3.1.0 data contract per project)."""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter


def _command() -> Any:
    from streamt_exporter_odcs.command import odcs_command

    return odcs_command


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="odcs",
            group="docs",
            description="Generate an ODCS 3.1.0 data contract.",
            command_factory=_command,
        ),
    ]
