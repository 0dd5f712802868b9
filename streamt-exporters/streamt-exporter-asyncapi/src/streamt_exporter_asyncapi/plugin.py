"""streamt plugin: ``docs asyncapi`` (AsyncAPI 3.1) and its deprecated alias ``docs openapi``."""

from __future__ import annotations

from typing import Any

from streamt.sdk import ErrorCode, Exporter, hookimpl

from streamt_exporter_asyncapi.codes import ASYNCAPI_INVALID


def _factory(name: str) -> Any:
    def build() -> Any:
        from streamt_exporter_asyncapi.command import make_command

        return make_command(name)

    return build


@hookimpl
def streamt_exporters() -> list[Exporter]:
    return [
        Exporter(
            name="asyncapi",
            group="docs",
            description="Generate an AsyncAPI 3.1 document.",
            command_factory=_factory("asyncapi"),
        ),
        Exporter(
            name="openapi",
            group="docs",
            description="Deprecated alias of docs asyncapi (emits the same AsyncAPI 3.1 document).",
            command_factory=_factory("openapi"),
        ),
    ]


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    return [ASYNCAPI_INVALID]
