"""streamt plugin: the `docs odcs` exporter.

The command is mounted so that it is discoverable, but the export itself is
not implemented in this release: it fails with ``E904_NOT_IMPLEMENTED``.
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter
from streamt.pending import pending_command

_HELP = "Generate an ODCS 3.1.0 data contract."


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="odcs",
            group="docs",
            description="Generate an ODCS 3.1.0 data contract.",
            command_factory=lambda: pending_command("docs odcs", "streamt-exporter-odcs", _HELP),
        ),
    ]
