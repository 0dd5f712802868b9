"""The ``streamt docs openlineage`` command: resolve namespaces, compile (dry run), map, check, then output."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import click
from streamt.sdk import Codes, Diagnostic, Result, env_option, project_dir_option

COMMAND = "docs openlineage"


@click.command("openlineage")
@click.option("--job-namespace", "job_namespace", default=None, help="Job namespace (else $OPENLINEAGE_NAMESPACE).")
@click.option("--kafka-namespace", "kafka_namespace", default=None, help="Kafka dataset namespace, kafka://HOST:PORT.")
@click.option(
    "--gateway-namespace", "gateway_namespace", default=None, help="Gateway dataset namespace, kafka://HOST:PORT."
)
@click.option("--output-file", "output_file", default=None, help="Atomically write the JSONL instead of printing it.")
@project_dir_option
@env_option
def openlineage_command(
    job_namespace: str | None,
    kafka_namespace: str | None,
    gateway_namespace: str | None,
    output_file: str | None,
    project_dir: str,
    env: str | None,
) -> Result:
    """Export static OpenLineage DatasetEvent and JobEvent design metadata as canonical JSON Lines."""
    from streamt.sdk import document_result, failure_result, load_and_compile

    from streamt_exporter_openlineage import namespaces as ns
    from streamt_exporter_openlineage.export import Namespaces, build_export

    errors: list[Diagnostic] = []
    job = job_namespace if job_namespace is not None else os.environ.get(ns.JOB_NAMESPACE_ENV)
    if job is None or job == "":
        errors.append(_error("No job namespace was given.", f"Pass --job-namespace or set {ns.JOB_NAMESPACE_ENV}."))
    elif (problem := ns.job_namespace_problem(job)) is not None:
        errors.append(_error(f"Invalid job namespace: {problem}.", "Pass a plain namespace or URI."))

    explicit = {
        "kafka": (kafka_namespace, "--kafka-namespace", ns.KAFKA_NAMESPACE_ENV),
        "gateway": (gateway_namespace, "--gateway-namespace", ns.GATEWAY_NAMESPACE_ENV),
    }
    chosen: dict[str, str | None] = {}
    for space, (option_value, option, env_name) in explicit.items():
        value = option_value if option_value is not None else os.environ.get(env_name) or None
        if value is not None and not ns.is_kafka_uri(value):
            source = option if option_value is not None else env_name
            errors.append(
                _error(
                    f"{source} is not a kafka://HOST:PORT namespace.", "Pass kafka://HOST:PORT, without credentials."
                )
            )
            value = None
        chosen[space] = value
    if errors:
        return Result(COMMAND, errors=tuple(errors))

    loaded = load_and_compile(project_dir, env, lazy_secrets=True)  # an export never connects
    runtime = loaded.project.runtime
    derived_problems: dict[str, str] = {}
    if chosen["kafka"] is None:
        kafka = runtime.kafka.bootstrap_servers if runtime.kafka else None
        chosen["kafka"], problem = ns.derive_kafka_uri(kafka)
        derived_problems["kafka"] = problem or ""
    if chosen["gateway"] is None:
        gateway = _proxy_bootstrap(runtime)
        chosen["gateway"], problem = ns.derive_kafka_uri(gateway)
        derived_problems["gateway"] = problem or ""

    export = build_export(
        loaded.project, loaded.compiled, Namespaces(job=str(job), kafka=chosen["kafka"], gateway=chosen["gateway"])
    )
    warnings = loaded.warnings + export.warnings
    if export.errors:
        # Add why a namespace could not be derived; nothing is written or printed.
        detailed = tuple(_with_reason(e, derived_problems) if e.message.startswith("No ") else e for e in export.errors)
        return failure_result(COMMAND, detailed, warnings)
    data = {
        "counts": export.counts,
        "events": list(export.events),
        "namespaces": {"gateway": chosen["gateway"], "job": job, "kafka": chosen["kafka"]},
        "output_file": output_file,
    }
    return document_result(
        COMMAND,
        data=data,
        text=export.text,
        warnings=warnings,
        output_file=output_file,
        code=Codes.E506_OPENLINEAGE_INVALID,
    )


def _with_reason(error: Diagnostic, problems: dict[str, str]) -> Diagnostic:
    space = "gateway" if "gateway" in error.message else "kafka"
    reason = problems.get(space)
    if not reason:
        return error
    return Diagnostic(error.code, f"{error.message[:-1]}: {reason}.", error.suggestion)


def _error(message: str, suggestion: str) -> Diagnostic:
    return Diagnostic(Codes.E506_OPENLINEAGE_INVALID, message, suggestion)


def _proxy_bootstrap(runtime: Any) -> str | None:
    """The Gateway's Kafka proxy address (``runtime.conduktor.gateway.proxy_bootstrap``), if written.

    ``runtime.conduktor`` is the Gateway plugin's section; an exporter may not import that plugin,
    so it reads the one attribute it needs, whichever object (or read-only map) holds it.
    """
    conduktor = runtime.section("conduktor")
    gateway = _field(conduktor, "gateway")
    value = _field(gateway, "proxy_bootstrap")
    return value if isinstance(value, str) else None


def _field(value: Any, name: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(name)
    return getattr(value, name, None)
