"""The ``streamt docs backstage`` command: check options, compile (dry run), map, check, then write or print."""

from __future__ import annotations

import click
from streamt.sdk import Result, env_option, project_dir_option

from streamt_exporter_backstage.codes import BACKSTAGE_INVALID

COMMAND = "docs backstage"


@click.command("backstage")
@click.option("--catalog-id", "catalog_id", required=True, help="Stable catalog identity: the System entity name.")
@click.option("--catalog-namespace", "namespace", required=True, help="Lowercase namespace for generated entities.")
@click.option("--default-owner-ref", "default_owner", required=True, help="Full group:/user: ref of the owner.")
@click.option("--lifecycle", required=True, help="Exact Component lifecycle (production, experimental, ...).")
@click.option("--owner-map", "owner_map", default=None, help="Strict version-1 JSON map: owner label -> full ref.")
@click.option("--kafka-cluster-ref", "kafka_cluster", default=None, help="Full resource: ref of the Kafka cluster.")
@click.option("--gateway-cluster-ref", "gateway_cluster", default=None, help="Full resource: ref of the Gateway.")
@click.option("--domain-ref", "domain", default=None, help="Optional full domain: ref for the System.")
@click.option("--output-file", "output_file", default=None, help="Atomically write the YAML instead of printing it.")
@project_dir_option
@env_option
def backstage_command(
    catalog_id: str,
    namespace: str,
    default_owner: str,
    lifecycle: str,
    owner_map: str | None,
    kafka_cluster: str | None,
    gateway_cluster: str | None,
    domain: str | None,
    output_file: str | None,
    project_dir: str,
    env: str | None,
) -> Result:
    """Export Backstage Software Catalog entities as canonical, offline-validated multi-document YAML."""
    from streamt.sdk import document_result, failure_result, load_and_compile

    from streamt_exporter_backstage.export import (
        API_VERSION,
        CATALOG_MODEL_VERSION,
        Options,
        build_export,
        load_owner_map,
        option_problems,
    )

    options = Options(
        catalog_id, namespace, default_owner, lifecycle, owner_map, kafka_cluster, gateway_cluster, domain
    )
    problems = option_problems(options) + load_owner_map(owner_map)[1]
    if problems:
        return Result(COMMAND, errors=tuple(problems))
    loaded = load_and_compile(project_dir, env, lazy_secrets=True)  # an export never connects
    export = build_export(loaded.project, loaded.compiled, options)
    warnings = loaded.warnings + export.warnings
    if export.errors:
        return failure_result(COMMAND, export.errors, warnings)
    data = {
        "api_version": API_VERSION,
        "catalog_model_version": CATALOG_MODEL_VERSION,
        "counts": {**export.counts, "total": len(export.entities)},
        "entities": list(export.entities),
        "format": "yaml",
        "output_file": output_file,
    }
    return document_result(
        COMMAND, data=data, text=export.text, warnings=warnings, output_file=output_file, code=BACKSTAGE_INVALID
    )
