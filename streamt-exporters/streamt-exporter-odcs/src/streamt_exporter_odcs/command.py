"""The ``streamt docs odcs`` command: compile (dry run), map, check, serialize, then print or write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from streamt.sdk import Result, env_option, project_dir_option

from streamt_exporter_odcs.codes import ODCS_INVALID


@click.command("odcs")
@click.option("--contract-id", "contract_id", required=True, help="Explicit contract identity, copied exactly.")
@click.option("--status", required=True, help="Explicit lifecycle status (e.g. active), copied exactly.")
@click.option(
    "--contract-version", "contract_version", default=None, help="Contract version [default: project.version]."
)
@click.option(
    "--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True, help="Raw serialization."
)
@click.option("--output-file", "output_file", default=None, help="Atomically replace this file instead of printing.")
@project_dir_option
@env_option
def odcs_command(
    contract_id: str,
    status: str,
    contract_version: str | None,
    fmt: str,
    output_file: str | None,
    project_dir: str,
    env: str | None,
) -> Result:
    """Generate one deterministic, offline-validated ODCS 3.1.0 data contract for the project."""
    from streamt.sdk import Diagnostic, atomic_write, load_and_compile, physical_resources

    from streamt_exporter_odcs.checks import document_problems, metadata_problems
    from streamt_exporter_odcs.mapping import build_contract
    from streamt_exporter_odcs.serialize import serialize

    def failure(problems: list[str], suggestion: str, warnings: tuple[Diagnostic, ...] = ()) -> Result:
        errors = tuple(Diagnostic(ODCS_INVALID, p, suggestion) for p in problems)
        return Result("docs odcs", data={}, errors=errors, warnings=warnings)

    loaded = load_and_compile(project_dir, env, lazy_secrets=True)  # an export never connects
    project = loaded.project
    version = contract_version if contract_version is not None else str(project.info.version or "")
    problems = metadata_problems(contract_id, status, version)
    if problems:
        return failure(problems, "Pass explicit, non-blank --contract-id, --status and --contract-version values.")
    mapped = build_contract(project, contract_id, status, version, physical_resources(loaded.compiled.artifacts))
    warnings = loaded.warnings + mapped.warnings
    if mapped.problems:
        return failure(list(mapped.problems), "Declare supported Flink SQL column types.", warnings)
    problems = document_problems(mapped.document)
    if problems:
        return failure(problems, "Report this mapping problem to streamt.", warnings)
    try:
        text = serialize(mapped.document, fmt)
    except ValueError as exc:
        return failure([f"The contract could not be serialized as {fmt}: {exc}"], "Report this to streamt.", warnings)
    data: dict[str, Any] = {
        "document": mapped.document,
        "format": fmt,
        "counts": {
            "schema_objects": len(mapped.document["schema"]),
            "properties": sum(len(o.get("properties", [])) for o in mapped.document["schema"]),
        },
        "output_file": output_file,
    }
    if output_file is not None:
        try:
            atomic_write(Path(output_file), text.encode("utf-8"))
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            return failure(
                [f"Could not write '{output_file}': {reason}. Nothing was changed."],
                "Check that the target directory exists and is writable.",
                warnings,
            )
        text = ""
    return Result("docs odcs", data=data, text=text, warnings=warnings, raw=True)
