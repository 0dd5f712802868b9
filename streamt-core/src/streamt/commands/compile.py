"""`streamt compile`: load, validate and write the artifacts of a project."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import click

from streamt.cli.options import env_option, project_dir_option
from streamt.result import Result


def output_target(project_dir: str, output_dir: str | None, default: str) -> tuple[Path, str]:
    """The directory to write and how to show it: ``--output-dir`` as given, else inside the project."""
    if output_dir is not None:
        return Path(output_dir), output_dir.rstrip("/") or "/"
    return Path(project_dir) / default, os.path.normpath(os.path.join(project_dir, default))


def produce(
    project_dir: str, env: str | None, target: Path | None, checksums: bool
) -> tuple[Any, list[str], list[dict[str, Any]]]:
    """Compile and, unless ``target`` is None (dry run: no file is rendered), replace ``target`` with the
    output; returns the sorted output paths and the artifact summaries."""
    from streamt.collector import collector_paused
    from streamt.compile import load_and_compile, manifest, output_paths, probe_output, write_compiled

    probe = None if target is None else probe_output(target)  # while the heap is small
    with collector_paused():
        loaded = load_and_compile(project_dir, env, lazy_secrets=True)
        listed = manifest(loaded.compiled)
        if target is None:
            paths = output_paths(listed, checksums)
        else:
            paths = write_compiled(
                target, loaded.compiled, checksums, project_root=loaded.root, listed=listed, probe=probe
            )
        return loaded, paths, artifact_summaries(loaded.compiled, listed)


def tree_lines(paths: list[str]) -> list[str]:
    """``topics/`` then its files indented, as the CLI reference prints them."""
    lines: list[str] = []
    current = None
    for path in paths:
        directory, _, name = path.rpartition("/")
        if not directory:
            continue
        if directory != current:
            lines.append(f"  {directory}/")
            current = directory
        lines.append(f"    {name}")
    return lines


def artifact_summaries(compiled: Any, listed: dict[str, Any]) -> list[dict[str, Any]]:
    """Per artifact, in compiled order; checksums come from the manifest ``listed`` (each costs a full
    canonical encoding of the spec, so they are computed once)."""
    checksums = {(e["kind"], e["identity"]): e["checksum"] for items in listed["artifacts"].values() for e in items}
    return [
        {
            "checksum": checksums[(a.kind, a.identity)],
            "identity": a.identity,
            "kind": a.kind,
            "name": a.name,
            "ownership": a.ownership,
        }
        for a in compiled.artifacts
    ]


@click.command("compile")
@project_dir_option
@env_option
@click.option("--output-dir", default=None, help="Output directory (default: generated/ in the project).")
@click.option("--dry-run", is_flag=True, help="Show what would be generated without writing.")
def compile_command(project_dir: str, env: str | None, output_dir: str | None, dry_run: bool) -> Result:
    """Parse, validate and generate deployment artifacts."""
    target, shown = output_target(project_dir, output_dir, "generated")
    loaded, paths, summaries = produce(project_dir, env, None if dry_run else target, checksums=False)
    lines = ["Compiling project...", "", "Generated artifacts:" if not dry_run else "Would generate:"]
    lines += tree_lines(paths) or ["  (none)"]
    lines += ["", "Dry run: nothing written." if dry_run else f"Manifest written to: {shown}/manifest.json"]
    data = {
        "artifacts": summaries,
        "counts": dict(sorted(Counter(a.kind for a in loaded.compiled.artifacts).items())),
        "dry_run": dry_run,
        "environment": loaded.compiled.environment,
        "files": paths,
        "manifest": None if dry_run else f"{shown}/manifest.json",
        "output_dir": None if dry_run else shown,
    }
    return Result("compile", data=data, text="\n".join(lines), warnings=loaded.warnings)
