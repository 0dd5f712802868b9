"""``streamt docs dictionary``: every source and model column as CSV (default) or JSON."""

from __future__ import annotations

import csv
import io
from typing import Any

import click

from streamt.cli.options import project_options
from streamt.result import Result

FIELDS = ("resource_type", "resource", "topic", "column", "type", "description", "classification", "required")


@click.command("dictionary")
@project_options
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
def docs_dictionary(project_dir: str, env: str | None, fmt: str) -> Result:
    """Export a data dictionary of sources and models."""
    from streamt.project import load_project

    project = load_project(project_dir, env, lazy_secrets=True)
    rows: list[dict[str, Any]] = []
    for source in project.sources:
        rows += [_row("source", source.name, source.topic, c) for c in source.columns]
    for model in project.models:
        rows += [_row("model", model.name, model.topic_name, c) for c in model.columns]
    data = {"count": len(rows), "columns": rows}
    if fmt == "json":
        from streamt.json_output import to_json_text

        return Result("docs dictionary", data=data, text=to_json_text(rows).rstrip("\n"), raw=True)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    # Booleans as JSON spells them (not Python's True/False), so spreadsheets and scripts agree.
    writer.writerows({**row, "required": "true" if row["required"] else "false"} for row in rows)
    return Result("docs dictionary", data=data, text=buffer.getvalue().rstrip("\n"), raw=True)


def _row(kind: str, name: str, topic: str, column: Any) -> dict[str, Any]:
    return {
        "resource_type": kind,
        "resource": name,
        "topic": topic,
        "column": column.name,
        "type": column.type or "",
        "description": column.description or "",
        "classification": column.classification or "",
        "required": column.required,
    }
