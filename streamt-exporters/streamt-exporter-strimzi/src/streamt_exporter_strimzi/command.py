"""The ``streamt export strimzi`` command: compile (dry run), map, check, then write or print."""

from __future__ import annotations

import click
from streamt.cli.options import env_option, project_dir_option
from streamt.result import Result

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
    from streamt.compile import load_and_compile
    from streamt.exporting import write_output_file

    from streamt_exporter_strimzi.export import build_export

    loaded = load_and_compile(project_dir, env)
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
        return Result("export strimzi", data={}, errors=export.errors, warnings=warnings)
    text = export.text
    if output_file is not None:
        write_output_file(output_file, text, STRIMZI_INVALID)
        text = ""
    return Result("export strimzi", data=data, text=text, warnings=warnings, raw=True)
