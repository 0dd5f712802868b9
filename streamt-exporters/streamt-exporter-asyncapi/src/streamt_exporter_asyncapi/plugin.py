"""streamt plugin: the `docs asyncapi` exporter.

The command is mounted so that it is discoverable, but the export itself is
not implemented in this release: it fails with ``E904_NOT_IMPLEMENTED``.
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter
from streamt.pending import pending_command

_HELP = "Generate an AsyncAPI 3.1 document."


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="asyncapi",
            group="docs",
            description="Generate an AsyncAPI 3.1 document.",
            command_factory=lambda: pending_command("docs asyncapi", "streamt-exporter-asyncapi", _HELP),
        ),
        Exporter(
            name="openapi",
            group="docs",
            description="Deprecated alias of docs asyncapi.",
            command_factory=lambda: pending_command("docs openapi", "streamt-exporter-asyncapi", _HELP),
        ),
    ]
