"""streamt plugin: the `export strimzi` exporter.

The command is mounted so that it is discoverable, but the export itself is
not implemented in this release: it fails with ``E904_NOT_IMPLEMENTED``.
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter
from streamt.pending import pending_command

_HELP = "Export managed topics as Strimzi KafkaTopic YAML."


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="strimzi",
            group="export",
            description="Export managed topics as Strimzi KafkaTopic YAML.",
            command_factory=lambda: pending_command("export strimzi", "streamt-exporter-strimzi", _HELP),
        ),
    ]
