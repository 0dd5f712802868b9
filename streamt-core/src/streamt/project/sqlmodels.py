"""Models with their SQL rendered, dependencies recorded and materialization inferred."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from streamt.errors import Codes, Diagnostic
from streamt.project.materialization import AMBIGUOUS, NO_RUNTIME, infer
from streamt.project.model import Model, Notice, Ref
from streamt.project.yaml_io import SourcePosition, config_lookup
from streamt.render import render_sql


def build_models(
    normalized: list[tuple[Any, tuple[Any, ...], dict[str, Any]]],
    source_topics: dict[str, str],
    model_topics: dict[str, str],
    variables: Mapping[str, str],
    document: dict[str, Any],
    *,
    has_gateway: bool,
    has_flink: bool,
    structure_model: Callable[[Any, tuple[Any, ...], dict[str, Any]], Model | None],
) -> tuple[list[tuple[Any, Model]], list[Diagnostic], list[Notice]]:
    def resolve(kind: str, name: str) -> str:
        table = source_topics if kind == "source" else model_topics
        return table.get(name, name)

    models: list[tuple[Any, Model]] = []
    diagnostics: list[Diagnostic] = []
    notices: list[Notice] = []
    for file, keys, data in normalized:
        name = str(data.get("name") or "?")
        sql = data.get("sql")
        rendered_sql = None
        if isinstance(sql, str) and sql.strip():
            rendered = render_sql(sql, resolve, variables, lambda path: config_lookup(document, path))
            dependencies = rendered.dependencies
            rendered_sql = rendered.sql
            if rendered.error is not None:
                where = SourcePosition(file.shown, file.path, (*keys, "sql"))
                diagnostics.append(_render_error(name, sql, where, rendered))
        else:
            dependencies = tuple(_from_refs(data.get("from_")))
        materialized, note = infer(data, rendered_sql, has_gateway, has_flink)
        if note == AMBIGUOUS:
            notices.append(
                Notice(
                    code="AMBIGUOUS_MATERIALIZATION",
                    message=f"Model '{name}' is stateless; without a Gateway it runs as Flink",
                    subject=name,
                )
            )
        elif note == NO_RUNTIME:
            diagnostics.append(
                Diagnostic(
                    Codes.E208_MISSING_CONFIG,
                    f"Model '{name}' needs a processing runtime, but neither Flink nor a Gateway is configured",
                    "Add runtime.flink (or runtime.conduktor.gateway), or set materialized explicitly.",
                    SourcePosition(file.shown, file.path, (*keys, "name")),
                )
            )
        # The recorded Refs go in as they are: structuring keeps an instance of the class it builds.
        full = {**data, "materialized": materialized, "dependencies": list(dependencies), "rendered_sql": rendered_sql}
        model = structure_model(file, keys, full)
        if model is not None:
            models.append((file, model))
    return models, diagnostics, notices


def _from_refs(value: Any) -> list[Ref]:
    out: list[Ref] = []
    # Anything but a list of refs is reported when the model is structured.
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict):
            if isinstance(item.get("source"), str):
                out.append(Ref(source=item["source"]))
            elif isinstance(item.get("ref"), str):
                out.append(Ref(ref=item["ref"]))
    return out


def _render_error(name: str, sql: str, shown: str, rendered: Any) -> Diagnostic:
    if rendered.error_kind == "env":
        names = ", ".join(sorted(set(rendered.missing_env)))
        return Diagnostic(
            Codes.E502_ENV_VAR_ERROR,
            f"Environment variable(s) not set: {names} (env() in model '{name}')",
            "Export the variable or pass a fallback: {{ env('NAME', 'default') }}.",
            shown,
        )
    if rendered.error_kind == "config":
        return Diagnostic(
            Codes.E501_PARSE_ERROR,
            f"Model '{name}': {rendered.error}",
            "config() takes a dotted path into stream_project.yml, e.g. config('project.name').",
            shown,
        )
    line = rendered.line
    excerpt = sql.splitlines()[line - 1].strip() if line and 0 < line <= len(sql.splitlines()) else None
    where = f" at SQL line {line}" if line else ""
    message = f"Jinja error in model '{name}'{where}: {rendered.error}"
    if excerpt:
        message += f" — {excerpt[:120]}"
    return Diagnostic(
        Codes.E105_JINJA_SYNTAX_ERROR,
        message,
        "Only {{ source('x') }}, {{ ref('x') }}, {{ env('VAR') }} and {{ config('path') }} are available.",
        shown,
        {"model": name, "line": line} if line else {"model": name},
    )
