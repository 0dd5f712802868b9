"""``streamt docs dictionary``: every source and model column as CSV (default) or JSON."""

from __future__ import annotations

import csv
import io
from typing import Any

import click

from streamt.cli.options import project_options
from streamt.result import Result

FIELDS = (
    "resource_type",
    "resource",
    "topic",
    "column",
    "type",
    "description",
    "classification",
    "required",
    "provenance",
)


@click.command("dictionary")
@project_options
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
def docs_dictionary(project_dir: str, env: str | None, fmt: str) -> Result:
    """Export a data dictionary of sources and models."""
    from streamt.compile.physical import physical_resources, readable_artifacts
    from streamt.dag import build_graph
    from streamt.project import load_project
    from streamt.sql.lineage import undeclared_column_lineage

    project = load_project(project_dir, env, lazy_secrets=True)
    artifacts, warnings = readable_artifacts(project, "Physical names left out")
    physical = physical_resources(artifacts)
    inferred = undeclared_column_lineage(project, build_graph(project))
    rows: list[dict[str, Any]] = []
    for source in project.sources:
        rows += [_row("source", source.name, source.topic, c) for c in source.columns]
    for model in project.models:
        # The topic a consumer reads (a Gateway alias for a virtual topic; none for a sink).
        found = physical.get(model.name)
        topic = found.topic if found is not None else None
        classification = dict(model.security.classification) if model.security else {}
        rows += [_row("model", model.name, topic, c) for c in model.columns]
        rows += [_inferred("model", model.name, topic, c, classification) for c in inferred.get(model.name, ())]
    data = {"count": len(rows), "columns": rows}
    if fmt == "json":
        from streamt.json_output import to_json_text

        return Result("docs dictionary", data=data, text=to_json_text(rows).rstrip("\n"), raw=True, warnings=warnings)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    # Booleans as JSON spells them (not Python's True/False), so spreadsheets and scripts agree.
    writer.writerows(
        {**row, "topic": row["topic"] or "", "required": "true" if row["required"] else "false"} for row in rows
    )
    text = buffer.getvalue().rstrip("\n")
    return Result("docs dictionary", data=data, text=text, raw=True, warnings=warnings)


def _row(kind: str, name: str, topic: str | None, column: Any) -> dict[str, Any]:
    return {
        "resource_type": kind,
        "resource": name,
        "topic": topic,
        "column": column.name,
        "type": column.type or "",
        "description": column.description or "",
        "classification": column.classification or "",
        "required": column.required,
        "provenance": "declared",
    }


def _inferred(
    kind: str, name: str, topic: str | None, column: dict[str, Any], classification: dict[str, str]
) -> dict[str, Any]:
    """A column the model's SQL yields (``lineage --columns``), for a model that declares none."""
    return {
        "resource_type": kind,
        "resource": name,
        "topic": topic,
        "column": column["name"],
        "type": column["type"] or "",
        "description": "",
        "classification": classification.get(column["name"], ""),
        "required": False,
        "provenance": "inferred",
    }
