"""``streamt init --discover``: a new project whose sources come from the same read-only discovery as import.

The project file and the discovered sources are staged and validated in a
private directory first; only a complete, valid pair is written (no-replace
unless ``--force``), so a failed discovery never leaves half a project.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml

from streamt.errors import Codes, StreamtError
from streamt.gitignore import with_gitignore
from streamt.result import Result

SOURCES_FILE = "sources/discovered.kafka.yml"


def project_yaml(name: str, kafka: str, registry: str | None) -> str:
    # The bootstrap list stays overridable per machine; the registry URL is written as given.
    runtime: dict[str, Any] = {"kafka": {"bootstrap_servers": f"${{KAFKA_BOOTSTRAP_SERVERS:-{kafka}}}"}}
    if registry:
        runtime["schema_registry"] = {"url": f"${{SCHEMA_REGISTRY_URL:-{registry}}}"}
    document = {
        "apiVersion": "streamt.dev/v1alpha1",
        "project": {"name": name, "version": "0.1.0"},
        "runtime": runtime,
    }
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False)


def init_discover(
    root: Path,
    name: str,
    *,
    kafka: str | None,
    registry: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    dry_run: bool,
    force: bool,
    quiet: bool = False,
) -> Result:
    from streamt.discovery.declarations import render_yaml
    from streamt.discovery.run import discover
    from streamt.discovery.target import validate_with
    from streamt.progress import for_command
    from streamt.project.json_schema import with_editor_schemas
    from streamt.project.loader import load_project

    if not kafka:
        raise StreamtError(Codes.E900_USAGE_ERROR, "--discover needs --kafka SERVERS.", "Pass --kafka host:port.")
    project_text = project_yaml(name, kafka, registry)
    existing = sorted(p for p in ("stream_project.yml", SOURCES_FILE) if (root / p).exists())
    if existing and not force:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"Project files already exist: {', '.join(existing)}",
            "Pass --force to overwrite, or use `streamt import` in an existing project.",
        )
    with tempfile.TemporaryDirectory(prefix="streamt-init-") as staging:
        stage = Path(staging)
        (stage / "stream_project.yml").write_text(project_text, encoding="utf-8")
        project = load_project(stage, None)
        progress = for_command(quiet)
        try:
            preview = discover(
                project.runtime,
                include=include,
                exclude=exclude,
                schemas=bool(registry),
                declared_topics=set(),
                taken_names=set(),
                progress=progress,
            )
        finally:
            progress.close()
        sources_text = render_yaml(list(preview.sources)) if preview.sources else None
        if sources_text is not None:
            validate_with(stage, None, SOURCES_FILE, sources_text)
    files = with_gitignore(
        root,
        with_editor_schemas(
            {"stream_project.yml": project_text, **({SOURCES_FILE: sources_text} if sources_text else {})}
        ),
    )
    if not dry_run:
        _write(root, files, force)
    verb = "Would create" if dry_run else "Created"
    text = [f"{verb} project '{name}' in {root} with {len(preview.sources)} discovered source(s)"]
    text += [f"  {p}" for p in files]
    data = {
        "project": name,
        "directory": str(root),
        "files": list(files),
        "dry_run": dry_run,
        "counts": preview.counts,
        "discovery": preview.discovery,
        "resources": list(preview.resources),
        "declarations": list(preview.sources),
    }
    return Result("init", data=data, text="\n".join(text), warnings=preview.warnings)


def _write(root: Path, files: dict[str, str], force: bool) -> None:
    from streamt.fsutil import atomic_write, create_exclusive

    try:
        for relative, content in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if force:
                atomic_write(path, content.encode("utf-8"))
            else:
                create_exclusive(path, content.encode("utf-8"), mode=0o644)
    except OSError as exc:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"Cannot write the project ({exc.strerror or type(exc).__name__}).",
            "Check permissions and free space; pass --force to overwrite existing files.",
        ) from None
