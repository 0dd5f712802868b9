"""OpenLineage namespaces: core's rules (``streamt.runlineage.namespaces``), shared with command-run emission."""

from __future__ import annotations

from streamt.sdk import (
    GATEWAY_NAMESPACE_ENV,
    JOB_NAMESPACE_ENV,
    KAFKA_NAMESPACE_ENV,
    derive_kafka_uri,
    is_kafka_uri,
    job_namespace_problem,
)

__all__ = [
    "GATEWAY_NAMESPACE_ENV",
    "JOB_NAMESPACE_ENV",
    "KAFKA_NAMESPACE_ENV",
    "derive_kafka_uri",
    "is_kafka_uri",
    "job_namespace_problem",
]
