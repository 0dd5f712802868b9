"""The ``streamt export strimzi`` command: compile (dry run), map, check, then write or print."""

from __future__ import annotations

import click
from streamt.sdk import Result, env_option, project_dir_option

from streamt_exporter_strimzi.codes import STRIMZI_INVALID


@click.command("strimzi")
@click.option("--namespace", required=True, help="Exact Kubernetes namespace for every emitted KafkaTopic.")
@click.option("--cluster-name", "cluster_name", required=True, help="Exact Strimzi Kafka cluster label value.")
@click.option("--output-file", "output_file", default=None, help="Atomically write the YAML instead of printing it.")
@project_dir_option
@env_option
def strimzi_command(
    namespace: str, cluster_name: str, output_file: str | None, project_dir: str, env: str | None
) -> Result:
    """Export managed compiled topics as canonical, offline-validated Strimzi KafkaTopic YAML."""
    from streamt.sdk import document_result, failure_result, load_and_compile

    from streamt_exporter_strimzi.export import build_export

    loaded = load_and_compile(project_dir, env, lazy_secrets=True)  # an export never connects
    export = build_export(loaded.compiled, namespace, cluster_name)
    warnings = loaded.warnings + export.warnings
    data = {
        "cluster_name": cluster_name,
        "counts": {
            "kafka_topics": len(export.documents),
            "omitted_artifacts": sum(export.omitted_artifacts.values()),
            "omitted_external_topics": export.omitted_external,
        },
        "documents": list(export.documents),
        "namespace": namespace,
        "output_file": output_file,
    }
    if export.errors:
        # Nothing is written when any document fails its checks.
        return failure_result("export strimzi", export.errors, warnings)
    return document_result(
        "export strimzi", data=data, text=export.text, warnings=warnings, output_file=output_file, code=STRIMZI_INVALID
    )
