"""Collecting ``observe`` rows: one batched read per artifact kind, through the provider plugins.

A kind's reader comes from ``streamt_runtime_readers``; a kind without one falls back to its
observer's ``runtime_status`` (connectors, runners), and a kind with neither is ``NOT_OBSERVED``.
A provider that cannot be read makes its resources ``UNAVAILABLE`` with the error code, never
"absent": the other providers are still shown. Nothing is ever changed.
"""

from __future__ import annotations

from typing import Any

from streamt import kinds
from streamt.artifacts import Artifact
from streamt.errors import StreamtError
from streamt.sdk.protocols import RuntimeStatusObserver

NOT_OBSERVED, UNAVAILABLE = "NOT_OBSERVED", "UNAVAILABLE"
OBSERVED_KINDS_FIRST = ("topic", "flink_job", "connector", "kafka_streams_job", "gateway_rule")
# The unit of every metric observe reports, for readers of -o json.
UNITS = {
    "lag_messages": "messages",
    "max_lag_messages": "messages",
    "messages": "messages (end minus beginning offsets; an estimate)",
    "partitions": "count",
    "records_in_per_second": "records/second",
    "records_out_per_second": "records/second",
    "backpressure_ratio": "ratio 0..1 of time a task was back-pressured",
    "last_checkpoint_age_seconds": "seconds since the last completed checkpoint",
}


def readers_by_kind(plugins: Any, runtime: Any) -> dict[str, Any]:
    return kinds.by_kind(plugins, "streamt_runtime_readers", "runtime_reader", _kinds, runtime=runtime)


def _kinds(reader: Any) -> tuple[str, ...]:
    return tuple(reader.kinds)


def observe_models(project: Any, artifacts: list[Artifact], plugins: Any) -> list[dict[str, Any]]:
    """``[{"type", "name", "materialized", "resources": [...]}]`` per source and model owning an artifact here."""
    from streamt.plan.observe import observers_by_kind

    readers = readers_by_kind(plugins, project.runtime)
    observers = observers_by_kind(plugins, project.runtime)
    by_kind: dict[str, list[Artifact]] = {}
    for artifact in artifacts:
        by_kind.setdefault(artifact.kind, []).append(artifact)
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for kind, group in by_kind.items():
        for identity, row in _read(kind, group, readers.get(kind), observers.get(kind)).items():
            seen[(kind, identity)] = row
    order = {k: i for i, k in enumerate(OBSERVED_KINDS_FIRST)}
    rows = []
    declared = [("source", s.name, None) for s in project.sources]
    declared += [("model", m.name, m.materialized) for m in project.models]
    for kind, name, materialized in declared:
        owned = sorted((a for a in artifacts if a.name == name), key=lambda a: (order.get(a.kind, 99), a.sort_key))
        if owned:
            resources = [{"kind": a.kind, "name": a.identity, **seen[(a.kind, a.identity)]} for a in owned]
            rows.append({"type": kind, "name": name, "materialized": materialized, "resources": resources})
    return rows


def _read(kind: str, group: list[Artifact], reader: Any, observer: Any) -> dict[str, dict[str, Any]]:
    try:
        if reader is not None:
            found = dict(reader.read(group))
        elif isinstance(observer, RuntimeStatusObserver):
            present = dict(observer.runtime_status(group))
            found = {a.identity: present.get(a.identity, {"state": "MISSING", "healthy": False}) for a in group}
        else:
            return {a.identity: {"state": NOT_OBSERVED, "healthy": None} for a in group}
    except StreamtError as exc:
        code = exc.diagnostics[0].code.code
        return {a.identity: {"state": UNAVAILABLE, "healthy": False, "error": code} for a in group}
    # A reader that skipped an artifact must not make it look fine.
    return {a.identity: found.get(a.identity, {"state": NOT_OBSERVED, "healthy": None}) for a in group}
