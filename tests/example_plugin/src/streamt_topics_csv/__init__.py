"""``streamt export topics-csv``: one CSV row per Kafka topic the project creates."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import click
from streamt.sdk import Exporter, Result, env_option, hookimpl, project_dir_option, write_output_file

COLUMNS = ("topic", "partitions", "replication_factor", "owner_model")
TOPIC_MATERIALIZATIONS = ("topic", "flink")  # the ones that create a Kafka topic


@hookimpl
def streamt_exporters() -> list[Exporter]:
    return [Exporter("topics-csv", "export", "Export the project's topics as CSV.", command_factory=lambda: topics_csv)]


@click.command("topics-csv")
@project_dir_option
@env_option
@click.option("--output-file", type=click.Path(dir_okay=False, path_type=Path), help="Write here instead of stdout.")
def topics_csv(project_dir: str, env: str | None, output_file: Path | None) -> Result:
    """Export the project's topics as CSV (topic, partitions, replication factor, owner model)."""
    from streamt.sdk import load_project  # imported when the command runs, not when `--help` is built

    project = load_project(project_dir, env=env)
    rows = [
        (
            model.topic_name,
            model.topic.partitions or project.defaults.partitions,
            model.topic.replication_factor or project.defaults.replication_factor,
            model.name,
        )
        for model in project.models
        if model.materialized in TOPIC_MATERIALIZATIONS
    ]
    rows.sort()
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(rows)
    data = {"topics": [dict(zip(COLUMNS, row, strict=True)) for row in rows]}
    if output_file is None:
        return Result("export topics-csv", data=data, text=buffer.getvalue(), raw=True)
    write_output_file(str(output_file), buffer.getvalue())  # atomic; E905 when it cannot be written
    return Result("export topics-csv", data={**data, "output_file": str(output_file)}, text=f"Wrote {output_file}")
