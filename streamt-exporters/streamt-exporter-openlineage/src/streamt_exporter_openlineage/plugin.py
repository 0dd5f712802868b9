"""streamt plugin: the `docs openlineage` exporter.

The command is mounted so that it is discoverable, but the export itself is
not implemented in this release: it fails with ``E904_NOT_IMPLEMENTED``.
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter
from streamt.pending import pending_command

_HELP = "Export OpenLineage design metadata."


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="openlineage",
            group="docs",
            description="Export OpenLineage design metadata.",
            command_factory=lambda: pending_command("docs openlineage", "streamt-exporter-openlineage", _HELP),
        ),
    ]
