"""OpenLineage namespaces: the job namespace and the ``kafka://host:port`` dataset namespaces.

Shared by ``docs openlineage`` (the exporter plugin) and the command-run emission of ``apply`` and
``test``. Explicit options win, then environment variables, then a derivation from the project
runtime that is only made when it is unambiguous: exactly one bootstrap server written as
``host:port``. Anything else is a problem for the caller to report (E506); nothing is guessed.
Values carrying user information (``user:secret@``) are refused so credentials never reach an event.
"""

from __future__ import annotations

import re

JOB_NAMESPACE_ENV = "OPENLINEAGE_NAMESPACE"
KAFKA_NAMESPACE_ENV = "STREAMT_OPENLINEAGE_KAFKA_NAMESPACE"
GATEWAY_NAMESPACE_ENV = "STREAMT_OPENLINEAGE_GATEWAY_NAMESPACE"

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = rf"(?:{_LABEL}(?:\.{_LABEL})*|\[[0-9A-Fa-f:.]+\])"
_HOST_PORT = re.compile(rf"^({_HOST}):([0-9]{{1,5}})$")
_KAFKA_URI = re.compile(rf"^kafka://({_HOST}):([0-9]{{1,5}})$")
_JOB_NAMESPACE_MAX = 1024


def _port_ok(port: str) -> bool:
    return 1 <= int(port) <= 65535


def is_kafka_uri(value: str) -> bool:
    """Whether ``value`` is an OpenLineage Kafka namespace: ``kafka://host:port`` with a valid port."""
    match = _KAFKA_URI.match(value)
    return match is not None and _port_ok(match.group(2))


def job_namespace_problem(value: str) -> str | None:
    """Why ``value`` cannot be an OpenLineage job namespace, or ``None`` when it can."""
    if not value or value != value.strip() or any(ch.isspace() or ord(ch) < 32 for ch in value):
        return "the job namespace must be non-empty and contain no whitespace or control characters"
    if len(value) > _JOB_NAMESPACE_MAX:
        return f"the job namespace is longer than {_JOB_NAMESPACE_MAX} characters"
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/]*@", value):
        return "the job namespace must not carry user information (user:password@)"
    return None


def derive_kafka_uri(bootstrap: str | None) -> tuple[str | None, str | None]:
    """``(uri, problem)`` for a bootstrap list; exactly one of them is set."""
    if not bootstrap or not bootstrap.strip():
        return None, "no bootstrap server is configured"
    servers = [s.strip() for s in bootstrap.split(",") if s.strip()]
    if len(servers) != 1:
        return None, f"{len(servers)} bootstrap servers are configured, so no single namespace can be derived"
    match = _HOST_PORT.match(servers[0])
    if match is None or not _port_ok(match.group(2)):
        return None, "the bootstrap server is not a plain host:port value"
    return f"kafka://{match.group(1).lower()}:{int(match.group(2))}", None
