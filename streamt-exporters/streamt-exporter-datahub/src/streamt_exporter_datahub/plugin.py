"""streamt plugin: the `docs datahub` exporter.

The command is mounted so that it is discoverable, but the export itself is
not implemented in this release: it fails with ``E904_NOT_IMPLEMENTED``.
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter
from streamt.pending import pending_command

_HELP = "Export DataHub metadata-change proposals."


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="datahub",
            group="docs",
            description="Export DataHub metadata-change proposals.",
            command_factory=lambda: pending_command("docs datahub", "streamt-exporter-datahub", _HELP),
        ),
    ]
