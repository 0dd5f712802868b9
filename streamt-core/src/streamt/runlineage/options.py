"""The shared ``--emit-openlineage`` options of ``apply`` and ``test``, and their preflight."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import attrs
import click

from streamt.errors import Codes, StreamtError
from streamt.runlineage import namespaces as ns


def openlineage_options(kafka_help: str, gateway_help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(
            (
                click.option(
                    "--emit-openlineage",
                    is_flag=True,
                    help="Emit one validated finite command-run lifecycle through an explicit transport.",
                ),
                click.option(
                    "--openlineage-job-namespace",
                    "ol_job_namespace",
                    default=None,
                    help=f"Job namespace; falls back to {ns.JOB_NAMESPACE_ENV}.",
                ),
                click.option("--openlineage-kafka-namespace", "ol_kafka_namespace", default=None, help=kafka_help),
                click.option(
                    "--openlineage-gateway-namespace", "ol_gateway_namespace", default=None, help=gateway_help
                ),
            )
        ):
            fn = option(fn)
        return fn

    return decorate


@attrs.frozen
class Namespaces:
    job: str
    kafka: str | None
    gateway: str | None


def invalid(message: str, suggestion: str) -> StreamtError:
    return StreamtError(Codes.E506_OPENLINEAGE_INVALID, message, suggestion)


def resolve(
    job: str | None, kafka: str | None, gateway: str | None, bootstrap: str | None, need_kafka: bool
) -> Namespaces:
    """Options win over environment variables (read after the project's ``.env`` is loaded)."""
    job = job if job is not None else os.environ.get(ns.JOB_NAMESPACE_ENV)
    if not job:
        raise invalid(
            "OpenLineage emission needs a job namespace; it is never inferred.",
            f"Pass --openlineage-job-namespace or set {ns.JOB_NAMESPACE_ENV}.",
        )
    problem = ns.job_namespace_problem(job)
    if problem is not None:
        raise invalid(f"Invalid OpenLineage job namespace: {problem}.", "Pass a plain namespace or URI.")
    chosen: dict[str, str | None] = {}
    for space, value, option, env_name in (
        ("kafka", kafka, "--openlineage-kafka-namespace", ns.KAFKA_NAMESPACE_ENV),
        ("gateway", gateway, "--openlineage-gateway-namespace", ns.GATEWAY_NAMESPACE_ENV),
    ):
        source = option if value is not None else env_name
        value = value if value is not None else os.environ.get(env_name) or None
        if value is not None and not ns.is_kafka_uri(value):
            raise invalid(f"{source} is not a kafka://HOST:PORT namespace.", "Pass kafka://HOST:PORT, no credentials.")
        chosen[space] = value
    if need_kafka and chosen["kafka"] is None:
        chosen["kafka"], problem = ns.derive_kafka_uri(bootstrap)
        if problem is not None:
            raise invalid(
                f"No Kafka namespace for the sample inputs: {problem}.",
                f"Pass --openlineage-kafka-namespace or set {ns.KAFKA_NAMESPACE_ENV}.",
            )
    return Namespaces(job, chosen["kafka"], chosen["gateway"])
