"""streamt plugin: the ``export strimzi`` exporter (Strimzi 1.2.0 ``KafkaTopic`` YAML)."""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import Exporter


def _command() -> Any:
    from streamt_exporter_strimzi.command import strimzi_command

    return strimzi_command


@hookimpl
def streamt_exporters() -> list[Any]:
    return [
        Exporter(
            name="strimzi",
            group="export",
            description="Export managed topics as Strimzi KafkaTopic YAML.",
            command_factory=_command,
        ),
    ]
