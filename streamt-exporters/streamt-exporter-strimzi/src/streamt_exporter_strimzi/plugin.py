"""streamt plugin: the ``export strimzi`` exporter (Strimzi 1.2.0 ``KafkaTopic`` YAML)."""

from __future__ import annotations

from typing import Any

from streamt.sdk import ErrorCode, Exporter, hookimpl

from streamt_exporter_strimzi.codes import STRIMZI_INVALID


def _command() -> Any:
    from streamt_exporter_strimzi.command import strimzi_command

    return strimzi_command


@hookimpl
def streamt_exporters() -> list[Exporter]:
    return [
        Exporter(
            name="strimzi",
            group="export",
            description="Export managed topics as Strimzi KafkaTopic YAML.",
            command_factory=_command,
        ),
    ]


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    return [STRIMZI_INVALID]
