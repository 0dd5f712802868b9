"""``streamt docs asyncapi`` (and its deprecated alias ``docs openapi``): compile, map, check, print."""

from __future__ import annotations

from typing import Any

import click
from streamt.sdk import Result, env_option, project_dir_option

from streamt_exporter_asyncapi.codes import ASYNCAPI_INVALID

_DEPRECATED = "docs openapi"


def make_command(name: str) -> click.Command:
    command_name = f"docs {name}"

    @click.command(name)
    @project_dir_option
    @env_option
    def asyncapi_command(project_dir: str, env: str | None) -> Result:
        """Generate a deterministic, offline-validated AsyncAPI 3.1 JSON document for declared Kafka channels."""
        return _run(command_name, project_dir, env)

    if command_name == _DEPRECATED:
        asyncapi_command.help = "Deprecated alias of `docs asyncapi`: emits the same AsyncAPI 3.1 document."
    return asyncapi_command


def _run(command_name: str, project_dir: str, env: str | None) -> Result:
    import json

    from streamt.sdk import Codes, Diagnostic, document_result, failure_result, load_and_compile, physical_resources

    from streamt_exporter_asyncapi.checks import document_problems
    from streamt_exporter_asyncapi.mapping import build_document

    notices: tuple[Diagnostic, ...] = ()
    if command_name == _DEPRECATED:
        notices = (
            Diagnostic(
                Codes.W901_PLUGIN_WARNING,
                "`docs openapi` is deprecated: it emits an AsyncAPI 3.1 document, not OpenAPI.",
                "Use `streamt docs asyncapi`; the output is identical.",
                details={"deprecated_command": _DEPRECATED, "replacement": "docs asyncapi"},
            ),
        )
    loaded = load_and_compile(project_dir, env, lazy_secrets=True)  # an export never connects
    warnings = notices + loaded.warnings
    mapped = build_document(loaded.project, physical_resources(loaded.compiled.artifacts))
    problems = list(mapped.problems) or document_problems(mapped.document)
    text = ""
    if not problems:
        try:
            text = json.dumps(mapped.document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        except ValueError as exc:
            problems = [f"The document could not be serialized as JSON: {exc}"]
    if problems:
        suggestion = "Declare supported Flink SQL column types and a distinct topic per source and model."
        errors = tuple(Diagnostic(ASYNCAPI_INVALID, p, suggestion) for p in problems)
        return failure_result(command_name, errors, warnings)
    document: dict[str, Any] = mapped.document
    components = document.get("components", {})
    data = {
        "document": document,
        "counts": {
            "channels": len(document["channels"]),
            "operations": len(document["operations"]),
            "messages": len(components.get("messages", {})),
            "schemas": len(components.get("schemas", {})),
        },
    }
    return document_result(command_name, data=data, text=text, warnings=warnings)
