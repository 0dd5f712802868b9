"""`streamt import`: declare existing Kafka topics as external sources (read-only discovery)."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import env_option, project_dir_option, quiet_option
from streamt.result import Result


@click.command("import")
@project_dir_option
@env_option
@click.option("--include", multiple=True, help="Include topics matching a glob; repeatable.")
@click.option("--exclude", multiple=True, help="Exclude topics matching a glob; repeatable.")
@click.option(
    "--output-file", default=None, help="New declaration directly in sources/ (default: sources/imported.kafka.yml)."
)
@click.option("--schemas/--no-schemas", default=True, help="Use configured Schema Registry enrichment.")
@click.option("--dry-run", is_flag=True, help="Return the complete deterministic preview without writing.")
@quiet_option
def import_command(
    project_dir: str,
    env: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    output_file: str | None,
    schemas: bool,
    dry_run: bool,
    quiet: bool,
) -> Result:
    """Add existing Kafka topics to the project as external source declarations."""
    from pathlib import Path

    from streamt.discovery.run import discover
    from streamt.discovery.target import DEFAULT_OUTPUT, output_path
    from streamt.progress import for_command
    from streamt.project.loader import load_project

    root = Path(project_dir)
    project = load_project(root, env)
    target = output_path(root, output_file or DEFAULT_OUTPUT)
    progress = for_command(quiet)
    try:
        preview = discover(
            project.runtime,
            include=tuple(include),
            exclude=tuple(exclude),
            schemas=schemas,
            declared_topics=declared_topics(project),
            taken_names={s.name for s in project.sources} | {m.name for m in project.models},
            progress=progress,
        )
    finally:
        progress.close()
    return finish("import", root, env, target, preview, dry_run)


def declared_topics(project: Any) -> set[str]:
    topics = {source.topic for source in project.sources}
    return topics | {m.topic_name for m in project.models if m.materialized in ("topic", "flink")}


def finish(command: str, root: Any, env: str | None, target: Any, preview: Any, dry_run: bool) -> Result:
    """Validate, then write (unless a dry run), and build the result; shared with ``init --discover``."""
    from streamt.discovery.declarations import render_yaml
    from streamt.discovery.target import create_declaration_file, target_exists, validate_with
    from streamt.errors import Codes, Diagnostic

    relative = f"sources/{target.name}"
    content = render_yaml(list(preview.sources)) if preview.sources else None
    warnings = list(preview.warnings)
    created: list[str] = []
    if content is not None:
        validate_with(root, env, relative, content)
        if dry_run and (target.exists() or target.is_symlink()):
            exists = target_exists(target).diagnostics[0]
            warnings.append(Diagnostic(Codes.W108_IMPORT_TARGET_EXISTS, exists.message, exists.suggestion))
        elif not dry_run:
            create_declaration_file(target, content)
            created.append(relative)
    data = {
        "dry_run": dry_run,
        "output_file": relative,
        "created_files": created,
        "counts": preview.counts,
        "discovery": preview.discovery,
        "resources": list(preview.resources),
        "declarations": list(preview.sources),
    }
    return Result(
        command, data=data, text=_text(preview, relative, created, dry_run, content), warnings=tuple(warnings)
    )


def _text(preview: Any, relative: str, created: list[str], dry_run: bool, content: str | None) -> str:
    counts = preview.counts
    lines = [
        f"Discovered {counts['discovered']} topic(s) (read-only): {counts['imported']} to import, "
        f"{counts['already_declared']} already declared, {counts['internal_skipped']} internal skipped, "
        f"{counts['filtered_out']} filtered out.",
        f"Schemas: {counts['schemas_resolved']} resolved, {counts['schemas_failed']} failed, "
        f"{counts['schemas_skipped_after_outage']} skipped after an outage.",
    ]
    for entry in preview.resources:
        lookup = (entry["completeness"]["schema_lookup"] or {}).get("status", "-")
        lines.append(f"  {entry['topic']}: {entry['status']} (schema {lookup})")
    if content is None:
        lines.append("Nothing to import; no file was written.")
    elif dry_run:
        lines += [f"Would create {relative}:", content.rstrip()]
    else:
        lines.append(f"Created {', '.join(created)}")
    return "\n".join(lines)
