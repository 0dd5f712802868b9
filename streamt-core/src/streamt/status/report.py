"""Collecting status: which resources, what the providers see, and what that means.

Managed and adopted resources are observed; external ones only with
``--include-external`` (otherwise they are listed with ``exists: null`` and
``observation: not_requested``). A kind with no observer yet is listed as
``NOT_OBSERVED`` rather than left out, and a provider that cannot be reached
makes its resources ``UNAVAILABLE`` instead of failing the whole command.
Classification reuses the planners: a planned create is ``MISSING``, an
update ``DRIFT``, a no-op ``OK``. An observer may also report a runtime state
(``runtime_status(artifacts) -> {identity: {"state": ..., "healthy": ...}}``,
e.g. a connector's ``RUNNING``/``FAILED``): it is kept apart from the
observation, so it never enters plan evidence, and replaces ``OK`` in the row.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from streamt.artifact_kinds import artifact_kinds
from streamt.artifacts import Artifact
from streamt.errors import StreamtError
from streamt.kind_names import KIND_SCHEMA, KIND_TOPIC
from streamt.plan.model import ABSENT, CREATE, UPDATE, Observation
from streamt.plan.tombstones import is_removal
from streamt.sdk.protocols import RuntimeStatusObserver, TopicOffsetsObserver

OK, MISSING, DRIFT, UNAVAILABLE, NOT_OBSERVED = "OK", "MISSING", "DRIFT", "UNAVAILABLE", "NOT_OBSERVED"
UNHEALTHY = (MISSING, DRIFT, UNAVAILABLE, NOT_OBSERVED)
EXTERNAL = "external_resources"  # listed, never inspected: not part of health

Section = tuple[str, str, str]  # (artifact kind, its list in the report, its heading in text)


def sections(plugins: Any) -> tuple[Section, ...]:
    """The report's lists: every registered kind but removals, in the order plan's text shows them.

    A list is named by the kind's manifest key (``flink_jobs``) and headed by its title, so a kind a
    plugin registers gets its own section without core knowing its name.
    """
    registry = artifact_kinds(plugins)
    ordered = sorted(registry.table, key=registry.rank)
    return tuple(
        (kind, registry.table[kind].manifest_key, registry.title(kind)) for kind in ordered if not is_removal(kind)
    )


def matches(artifact: Artifact, pattern: str | None) -> bool:
    return pattern is None or any(fnmatch.fnmatchcase(v, pattern) for v in (artifact.identity, artifact.name))


def status_report(
    project: Any,
    artifacts: tuple[Artifact, ...],
    plugins: Any,
    *,
    listed: tuple[Section, ...],
    include_external: bool,
    lag: bool,
    consumer_groups: bool,
) -> dict[str, Any]:
    from streamt.plan.engine import planners_by_kind
    from streamt.plan.observe import observers_by_kind

    observers = observers_by_kind(plugins, project.runtime)
    planners = planners_by_kind(plugins)
    inspected = [a for a in artifacts if include_external or a.ownership != "external"]
    external = [a for a in artifacts if not include_external and a.ownership == "external"]
    keys = {kind: key for kind, key, _title in listed}
    # The topics list is read below for lag and consumer groups, whichever plugin registers topics.
    report: dict[str, Any] = {"topics": [], **{key: [] for key in keys.values()}}
    by_kind: dict[str, list[Artifact]] = {}
    for artifact in inspected:
        if is_removal(artifact.kind):
            continue
        by_kind.setdefault(artifact.kind, []).append(artifact)
    for kind, group in sorted(by_kind.items()):
        key = keys.get(kind, kind + "s")
        observer = observers.get(kind)
        if observer is None:
            report.setdefault(key, []).extend(_entry(a, None, NOT_OBSERVED) for a in group)
            continue
        try:
            seen = observer.observe(group)
        except StreamtError as exc:
            error = exc.diagnostics[0].code.code
            report.setdefault(key, []).extend(dict(_entry(a, None, UNAVAILABLE), error=error) for a in group)
            continue
        runtime = _runtime_status(observer, [a for a in group if seen[a.identity].status != ABSENT])
        for artifact in group:
            observation = seen[artifact.identity]
            state = _classify(artifact, observation, planners.get(kind))
            entry = _entry(artifact, observation, state)
            if artifact.identity in runtime:
                details = runtime[artifact.identity]
                entry.update({k: v for k, v in details.items() if k not in entry})
                # A stopped job (``terminal``) shows its state, not the MISSING/DRIFT its resubmit reads as.
                if (state == OK or details.get("terminal")) and isinstance(details.get("state"), str):
                    entry["status"] = details["state"]
            report.setdefault(key, []).append(entry)
    present = [e["name"] for e in report["topics"] if e["exists"]]
    found = observers.get(KIND_TOPIC)
    topic_observer = found if isinstance(found, TopicOffsetsObserver) else None
    if lag and present and topic_observer is not None:
        counts = topic_observer.message_counts(present)
        for entry in report["topics"]:
            if entry["name"] in counts:
                entry["message_count"] = counts[entry["name"]]
    if (lag or consumer_groups) and topic_observer is not None:
        groups = topic_observer.consumer_groups(present)
        if lag:
            _add_consumer_lag(report["topics"], groups)
        if consumer_groups:
            report["consumer_groups"] = groups
    report[EXTERNAL] = [
        {"kind": a.kind, "name": a.identity, "logical_name": a.name, "exists": None, "observation": "not_requested"}
        for a in external
    ]
    return report


def _add_consumer_lag(topics: list[dict[str, Any]], groups: dict[str, dict[str, int]]) -> None:
    """Per topic, each reading group's lag and the largest one (groups read independently: no sum)."""
    for entry in topics:
        if not entry["exists"]:
            continue
        lags = {group: per_topic[entry["name"]] for group, per_topic in groups.items() if entry["name"] in per_topic}
        entry["consumer_lag"] = dict(sorted(lags.items()))
        entry["max_consumer_lag"] = max(lags.values(), default=0)


def _runtime_status(observer: Any, present: list[Artifact]) -> dict[str, dict[str, Any]]:
    """The observer's runtime state of present resources; an unreadable one is unavailable and unhealthy."""
    if not isinstance(observer, RuntimeStatusObserver) or not present:
        return {}
    try:
        return dict(observer.runtime_status(present))
    except StreamtError as exc:
        failed = {"state": UNAVAILABLE, "healthy": False, "error": exc.diagnostics[0].code.code}
        return {a.identity: dict(failed) for a in present}


def _classify(artifact: Artifact, observation: Observation, planner: Any) -> str:
    if observation.status == ABSENT:
        return MISSING
    if artifact.ownership == "external" or planner is None:
        return OK
    actions = [a for a in planner.plan(artifact, observation, None) if hasattr(a, "action")]
    if any(a.action == CREATE for a in actions):
        return MISSING
    return DRIFT if any(a.action == UPDATE for a in actions) else OK


def _entry(artifact: Artifact, observation: Observation | None, state: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": artifact.identity,
        "logical_name": artifact.name,
        "ownership": artifact.ownership,
        "status": state,
        "exists": None if observation is None else observation.status != ABSENT,
        "observation": "observed" if observation is not None else state.lower(),
    }
    spec = observation.spec if observation is not None and observation.spec else {}
    if artifact.kind == KIND_TOPIC:
        entry["partitions"] = spec.get("partitions")
        entry["replication_factor"] = spec.get("replication_factor")
    elif artifact.kind == KIND_SCHEMA:
        entry["version"] = spec.get("version")
        entry["schema_id"] = spec.get("id")
    return entry


def is_healthy(report: dict[str, Any]) -> bool:
    """No inspected resource of any kind (registered or not) is missing, drifted, unhealthy or unread."""
    return not any(
        entry.get("status") in UNHEALTHY or entry.get("healthy") is False
        for key, entries in report.items()
        if key != EXTERNAL and isinstance(entries, list)
        for entry in entries
    )
