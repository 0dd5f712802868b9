"""The ``streamt docs datahub`` command: check identity, compile (dry run), map, check, then write or print."""

from __future__ import annotations

import click
from streamt.sdk import Result, env_option, project_dir_option

from streamt_exporter_datahub.codes import DATAHUB_INVALID
from streamt_exporter_datahub.fabrics import FABRICS

COMMAND = "docs datahub"


@click.command("datahub")
@click.option("--catalog-id", "catalog_id", required=True, help="Exact caller-owned DataFlow ID.")
@click.option(
    "--fabric",
    required=True,
    metavar="FABRIC",
    help=f"Exact uppercase DataHub v1.7.0 FabricType, one of: {', '.join(FABRICS)}.",
)
@click.option("--kafka-platform-instance", "kafka_instance", default=None, help="Kafka platform instance.")
@click.option("--gateway-platform-id", "gateway_platform", default=None, help="Bare DataHub platform ID for Gateway.")
@click.option("--gateway-platform-instance", "gateway_instance", default=None, help="Gateway platform instance.")
@click.option(
    "--output-file", "output_file", default=None, help="Atomically write the MCP JSON instead of printing it."
)
@click.option(
    "--quiet", is_flag=True, help="Print neither the document nor warning text; the file and -o json are unchanged."
)
@project_dir_option
@env_option
def datahub_command(
    catalog_id: str,
    fabric: str,
    kafka_instance: str | None,
    gateway_platform: str | None,
    gateway_instance: str | None,
    output_file: str | None,
    quiet: bool,
    project_dir: str,
    env: str | None,
) -> Result:
    """Export DataHub v1.7.0 simplified Metadata Change Proposals as canonical JSON."""
    from streamt.sdk import document_result, failure_result, load_and_compile

    from streamt_exporter_datahub.export import DATAHUB_VERSION, Identity, build_export, identity_problems

    identity = Identity(catalog_id, fabric, kafka_instance, gateway_platform, gateway_instance)
    problems = identity_problems(identity)
    if problems:
        return Result(COMMAND, errors=tuple(problems))
    loaded = load_and_compile(project_dir, env, lazy_secrets=True)  # an export never connects
    export = build_export(loaded.project, loaded.compiled, identity)
    # --quiet hides warning text, never errors; the JSON envelope is a machine answer and keeps its warnings.
    quiet_text = quiet and not _json_mode()
    warnings = () if quiet_text else loaded.warnings + export.warnings
    if export.errors:
        return failure_result(COMMAND, export.errors, warnings)
    data = {
        "counts": export.counts,
        "datahub_version": DATAHUB_VERSION,
        "format": "simplified-mcp-json",
        "output_file": output_file,
        "proposals": list(export.proposals),
    }
    result = document_result(
        COMMAND, data=data, text=export.text, warnings=warnings, output_file=output_file, code=DATAHUB_INVALID
    )
    return Result(COMMAND, data=result.data, raw=True) if quiet_text else result


def _json_mode() -> bool:
    context = click.get_current_context(silent=True)
    return bool(context is not None and getattr(context.find_root().obj, "json", False))
