"""Compare two snapshots: per resource, what was added, removed or changed, each change classified.

Declarations are compared field by field (effective values: the compiled topic spec carries the
partitions and configs after ``defaults:``), and compiled artifacts by checksum, so a change that
no declared field explains (an upstream or default change recompiling a job) still shows up.
Resources equal on both sides cost one equality check: 5,000 unchanged models are cheap.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import attrs
from streamt.sdk import is_removal, produced_kinds, projection, where_clause

from streamt_impact.advice import advise
from streamt_impact.changes import BREAKING, NON_BREAKING, OPERATIONAL, FieldChange, ResourceChange
from streamt_impact.consumers import Consumers
from streamt_impact.identity import identity_changes
from streamt_impact.security import moved_secrets, security_changes
from streamt_impact.snapshot import Snapshot
from streamt_impact.widening import is_widening

KINDS = (("source", "sources"), ("model", "models"), ("test", "tests"), ("exposure", "exposures"))
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)
# Compatibility levels by strength: a consumer relying on a guarantee loses it when the level drops.
_COMPATIBILITY = {"NONE": 0, "BACKWARD": 1, "FORWARD": 1, "FULL": 2}
_METADATA = ("description", "owner", "tags", "version", "deprecation", "region")
_ARTIFACT_WORKFLOWS = {"flink_job": "flink_savepoint_upgrade", "kafka_streams_job": "kafka_streams_replacement"}


def compare(base: Snapshot, head: Snapshot, consumers: Consumers) -> list[ResourceChange]:
    """Every changed resource, sorted by kind then name; ``consumers`` is built from the same two sides."""
    base_artifacts, head_artifacts = _artifacts(base), _artifacts(head)
    changes: list[ResourceChange] = []
    for kind, attribute in KINDS:
        before = {item.name: item for item in getattr(base.project, attribute)}
        after = {item.name: item for item in getattr(head.project, attribute)}
        renames = _renames(kind, before, after)
        for name in sorted(before.keys() | after.keys()):
            old, new = before.get(name), after.get(name)
            artifacts = _artifact_changes(base_artifacts.get(name, {}), head_artifacts.get(name, {}))
            if old == new and not artifacts:
                continue
            advice: tuple[Any, ...] = ()
            if name in renames:
                fields = [_renamed(name, renames[name], _kept(kind, old if old is not None else new), old)]
                if old is None:  # the new name's side says what the rename does at runtime
                    fields += identity_changes(
                        base_artifacts.get(renames[name], {}), head_artifacts.get(name, {}), consumers.planners
                    )
            else:
                fields = _fields(kind, name, old, new, consumers, artifacts)
                if old is not None and new is not None and artifacts:
                    fields += identity_changes(
                        base_artifacts.get(name, {}), head_artifacts.get(name, {}), consumers.planners
                    )
                if kind == "model" and old is not None and new is not None and artifacts:
                    advice = advise(
                        artifacts, base_artifacts.get(name, {}), head_artifacts.get(name, {}), consumers.planners
                    )
                    fields = _advised(fields, advice)
            if fields:
                status = "added" if old is None else "removed" if new is None else "changed"
                owner = getattr(new if new is not None else old, "owner", None)
                changes.append(
                    ResourceChange(
                        kind=kind,
                        name=name,
                        status=status,
                        fields=tuple(fields),
                        artifacts=tuple(artifacts),
                        owner=owner,
                        advice=advice,
                    )
                )
    changes += _tombstones(base, head)
    return changes


def _topic_name(kind: str, declaration: Any) -> str | None:
    if kind == "source":
        return str(declaration.topic)
    if kind == "model" and declaration.materialized in ("topic", "flink"):
        return str(declaration.topic_name)
    return None


def _kept(kind: str, declaration: Any) -> str | None:
    """What a rename keeps, which pairs the removed and the added name: the topic written, or a sink's
    inputs and settings (what it runs is named after the declaration, so its identity changes)."""
    topic = _topic_name(kind, declaration)
    if topic is not None:
        return f"topic {topic}"
    settings = _plain(declaration.section("sink")) if kind == "model" else None
    if not settings:
        return None
    settings["config"] = {k: v for k, v in (settings.get("config") or {}).items() if k != "name"}
    inputs = ", ".join(sorted(r.name for r in declaration.from_)) or "its SQL"
    # After the NUL: what pairs the two sides, never shown (a setting may hold a placeholder).
    return f"the sink of {inputs}\0{json.dumps(settings, sort_keys=True, default=str)}"


def _renames(kind: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, str]:
    """Removed name <-> added name, both ways, when the two declarations keep the same topic or sink."""
    added = {_kept(kind, after[n]): n for n in sorted(after.keys() - before.keys())}
    pairs: dict[str, str] = {}
    for name in sorted(before.keys() - after.keys()):
        kept = _kept(kind, before[name])
        if kept is not None and kept in added:
            pairs[name], pairs[added[kept]] = added[kept], name
    return pairs


def _renamed(name: str, other: str, kept: str | None, old: Any) -> FieldChange:
    """A declaration renamed with its topic kept: readers keep reading; the ownership record does not follow."""
    kept = kept.split("\0", 1)[0] if kept else kept
    if old is None:
        return FieldChange(
            field="declaration",
            before=other,
            after=name,
            classification=NON_BREAKING,
            reason=f"renamed from {other}; {kept} is unchanged",
        )
    managed = old.ownership.mode != "external"
    return FieldChange(
        field="declaration",
        before=name,
        after=other,
        classification=OPERATIONAL if managed else NON_BREAKING,
        reason=f"renamed to {other}; {kept} is unchanged"
        + ("; its ownership record stays under the old name, so the new one must claim it" if managed else ""),
        workflow="adoption" if managed else None,
    )


def _advised(fields: list[FieldChange], advice: tuple[Any, ...]) -> list[FieldChange]:
    """The generic job workflow of each field replaced by what the job's planner advises."""
    by_workflow = {_ARTIFACT_WORKFLOWS[a.kind]: a for a in advice if a.kind in _ARTIFACT_WORKFLOWS}
    out = []
    for field in fields:
        given = by_workflow.get(field.workflow or "")
        if given is None:
            out.append(field)
        elif given.workflow is None:  # plan redeploys nothing (only the upgrade policy changed)
            out.append(
                attrs.evolve(
                    field, classification=NON_BREAKING, workflow=None, reason=f"{field.reason}; {given.summary}"
                )
            )
        else:
            out.append(attrs.evolve(field, workflow=given.workflow))
    return out


# --- artifacts ----------------------------------------------------------------------------------


def _artifacts(snapshot: Snapshot) -> dict[str, dict[tuple[str, str], Any]]:
    """Declaration name -> (kind, identity) -> artifact; tombstones are compared on their own."""
    grouped: dict[str, dict[tuple[str, str], Any]] = {}
    for artifact in snapshot.compiled.artifacts:
        if not is_removal(artifact.kind):
            grouped.setdefault(artifact.name, {})[(artifact.kind, artifact.identity)] = artifact
    return grouped


def _artifact_changes(before: dict[tuple[str, str], Any], after: dict[tuple[str, str], Any]) -> list[dict[str, str]]:
    out = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        # The checksum covers the spec only; comparing the specs themselves avoids serializing
        # every artifact of both sides (10,000 JSON encodings at 5,000 models).
        if old is not None and new is not None and old.spec == new.spec and old.ownership == new.ownership:
            continue
        status = "added" if old is None else "removed" if new is None else "changed"
        out.append({"identity": key[1], "kind": key[0], "status": status})
    return out


def _tombstones(base: Snapshot, head: Snapshot) -> list[ResourceChange]:
    before = {(a.kind, a.identity) for a in base.compiled.artifacts if is_removal(a.kind)}
    out = []
    for artifact in head.compiled.artifacts:
        if is_removal(artifact.kind) and (artifact.kind, artifact.identity) not in before:
            what = artifact.kind.removesuffix("_removal").replace("_", " ")
            field = FieldChange(
                field=f"lifecycle.{artifact.kind}s",
                before=None,
                after=artifact.identity,
                classification=OPERATIONAL,
                reason=f"a {what} '{artifact.identity}' is to be deleted",
                workflow="reviewed_removal",
            )
            changes = ({"identity": artifact.identity, "kind": artifact.kind, "status": "added"},)
            out.append(
                ResourceChange(kind="lifecycle", name=artifact.name, status="added", fields=(field,), artifacts=changes)
            )
    return out


# --- one resource -------------------------------------------------------------------------------


def _fields(
    kind: str, name: str, old: Any, new: Any, consumers: Consumers, artifacts: list[dict[str, str]]
) -> list[FieldChange]:
    if old is None:
        return _added(kind, name, new)
    if new is None:
        return _removed(kind, name, old, consumers)
    fields: list[FieldChange] = []
    if kind in ("source", "model"):
        fields += _ownership(kind, name, old, new)
        fields += _topic(kind, name, old, new, consumers)
        fields += _columns(name, _columns_of(kind, old), _columns_of(kind, new), consumers, "columns")
    if kind == "model":
        fields += _model(name, old, new, consumers)
    if kind == "source":
        fields += _source_schema(old, new)
    if kind in ("source", "model"):
        fields += security_changes(kind, old, new)
    if kind in ("test", "exposure"):
        fields += _declaration(kind, old, new)
    else:
        fields += _metadata(old, new)
    if not fields:
        fields += _unexplained(artifacts)
    return fields


def _added(kind: str, name: str, new: Any) -> list[FieldChange]:
    adopted = getattr(getattr(new, "ownership", None), "mode", None) == "adopted"
    return [
        FieldChange(
            field="declaration",
            before=None,
            after=kind,
            classification=OPERATIONAL if adopted else NON_BREAKING,
            reason=f"new {kind}" + (" declared adopted: the existing resource must be claimed" if adopted else ""),
            workflow="adoption" if adopted else None,
        )
    ]


def _removed(kind: str, name: str, old: Any, consumers: Consumers) -> list[FieldChange]:
    readers = consumers.remaining(name)
    managed = getattr(getattr(old, "ownership", None), "mode", "external") != "external"
    fields = []
    if readers:
        fields.append(
            FieldChange(
                field="declaration",
                before=kind,
                after=None,
                classification=BREAKING,
                reason=f"removed while still read by {consumers.describe(readers)}",
                flows=True,
            )
        )
    if managed and kind in ("source", "model"):
        fields.append(
            FieldChange(
                field="declaration",
                before=kind,
                after=None,
                classification=OPERATIONAL,
                reason="removed; its live resources are not deleted",
                workflow="reviewed_removal",
                flows=not readers,
            )
        )
    if not fields:
        fields.append(
            FieldChange(
                field="declaration", before=kind, after=None, classification=NON_BREAKING, reason=f"{kind} removed"
            )
        )
    return fields


def _ownership(kind: str, name: str, old: Any, new: Any) -> list[FieldChange]:
    before, after = old.ownership.mode, new.ownership.mode
    if before == after:
        return []
    workflow = "adoption" if after == "adopted" else "ownership_release" if after == "external" else "adoption"
    reason = {
        "adopted": "the existing resource must be claimed before streamt manages it",
        "external": "streamt stops managing it",
        "managed": "streamt takes over a resource it did not manage; it must be claimed, never silently",
    }[after]
    return [
        FieldChange(
            field="ownership.mode",
            before=before,
            after=after,
            classification=OPERATIONAL,
            reason=reason,
            workflow=workflow,
        )
    ]


def _topic(kind: str, name: str, old: Any, new: Any, consumers: Consumers) -> list[FieldChange]:
    fields = []
    before = old.topic if kind == "source" else old.topic_name
    after = new.topic if kind == "source" else new.topic_name
    stores = kind == "source" or old.materialized in ("topic", "flink")
    if before != after and stores:
        redeployed = consumers.jobs_reading(name)
        fields.append(
            FieldChange(
                field="topic.name",
                before=before,
                after=after,
                classification=BREAKING,
                reason="topic renamed: readers of the old topic stop receiving records and the new topic starts empty"
                + (f"; redeploy {consumers.describe(redeployed)} (they read it by name)" if redeployed else ""),
                workflow="reviewed_removal",
                flows=True,
            )
        )
    old_spec, new_spec = consumers.topic_spec("base", name), consumers.topic_spec("head", name)
    if old_spec is None or new_spec is None or old.ownership.mode != new.ownership.mode:
        return fields  # a managed spec is complete, an adopted one declared keys only: not comparable
    fields += _partitions(name, old, new, old_spec.get("partitions"), new_spec.get("partitions"), consumers)
    if old_spec.get("replication_factor") != new_spec.get("replication_factor"):
        fields.append(
            FieldChange(
                field="topic.replication_factor",
                before=old_spec.get("replication_factor"),
                after=new_spec.get("replication_factor"),
                classification=OPERATIONAL,
                reason="replication factor changed",
                workflow="replication_factor_change",
            )
        )
    old_config, new_config = old_spec.get("config", {}), new_spec.get("config", {})
    for key in sorted(old_config.keys() | new_config.keys()):
        if old_config.get(key) == new_config.get(key):
            continue
        policy = key == "cleanup.policy"
        fields.append(
            FieldChange(
                field=f"topic.config.{key}",
                before=old_config.get(key),
                after=new_config.get(key),
                classification=BREAKING if policy else NON_BREAKING,
                reason="cleanup policy changed: what readers can read back changes" if policy else "topic config",
                flows=policy,
            )
        )
    return fields


def _partitions(name: str, old: Any, new: Any, before: Any, after: Any, consumers: Consumers) -> list[FieldChange]:
    if before == after or before is None or after is None:
        return []
    keyed = bool(getattr(new, "key", None) or getattr(new, "primary_key", ()))
    stateful = consumers.stateful(name)
    if after < before:
        classification, workflow, reason = OPERATIONAL, "partition_reduction", "partition count reduced"
    elif keyed and stateful:
        classification, workflow = BREAKING, None
        stateless = [r for r in consumers.direct(name) if r not in stateful]
        reason = (
            f"keyed topic re-partitioned: keys move between partitions under stateful {consumers.describe(stateful)}"
        )
        if stateless:
            reason += f"; stateless {consumers.describe(stateless)} keep working"
    else:
        classification, workflow = NON_BREAKING, None
        reason = "more partitions" + ("" if keyed else " on an unkeyed topic")
    return [
        FieldChange(
            field="topic.partitions",
            before=before,
            after=after,
            classification=classification,
            reason=reason,
            workflow=workflow,
            flows=classification == BREAKING,
            breaks=tuple(reader for _, reader in stateful),
        )
    ]


# --- columns ------------------------------------------------------------------------------------


def _columns_of(kind: str, declaration: Any) -> dict[str, str | None] | None:
    """Column name -> declared type; a model without declared columns gives what its SELECT projects."""
    if declaration.columns:
        return {c.name: c.type for c in declaration.columns}
    if kind == "source" or not declaration.rendered_sql:
        return {} if kind == "source" else None
    shape = projection(declaration.rendered_sql)
    if shape is None or shape.star:
        return None
    return {c.name: c.type for c in shape.columns}


def _columns(
    name: str,
    before: dict[str, str | None] | None,
    after: dict[str, str | None] | None,
    consumers: Consumers,
    prefix: str,
) -> list[FieldChange]:
    if before is None or after is None:
        return []
    fields = []
    removed, added = [c for c in before if c not in after], [c for c in after if c not in before]
    # One column gone and one new of the same type: a rename (readers of the old name break).
    renamed = len(removed) == len(added) == 1 and before[removed[0]] == after[added[0]]
    for column in removed:
        what = f"renamed to {added[0]}" if renamed else "removed"
        fields.append(_column_break(name, prefix, column, before[column], None, what, consumers))
    for column in [c for c in after if c in before and before[c] != after[c]]:
        old_type, new_type = before[column], after[column]
        if old_type is None or new_type is None or is_widening(old_type, new_type):
            fields.append(
                FieldChange(
                    field=f"{prefix}.{column}",
                    before=old_type,
                    after=new_type,
                    classification=NON_BREAKING,
                    reason="type widened or newly declared",
                    flows=True,
                    columns=(column,),
                )
            )
        else:
            fields.append(_column_break(name, prefix, column, old_type, new_type, "type narrowed", consumers))
    for column in added:
        fields.append(
            FieldChange(
                field=f"{prefix}.{column}",
                before=None,
                after=after[column],
                classification=NON_BREAKING,
                reason=f"column added (renamed from {removed[0]})" if renamed else "column added",
                flows=True,
                columns=(column,),
            )
        )
    return fields


def _column_break(
    name: str, prefix: str, column: str, before: Any, after: Any, what: str, consumers: Consumers
) -> FieldChange:
    readers = consumers.reading(name, column)
    further = [
        f"{reader} (as {read})"
        for reader, via, read in consumers.chain.reach(name, column, typed=after is not None)
        if len(via) > 1
    ]
    if readers:
        classification, reason = BREAKING, f"{what}; read by {consumers.describe(readers)}"
        if further:
            reason += f", and downstream by {', '.join(further)}"
    else:
        classification, reason = NON_BREAKING, f"{what}; no declared consumer reads it"
    return FieldChange(
        field=f"{prefix}.{column}",
        before=before,
        after=after,
        classification=classification,
        reason=reason,
        flows=True,
        columns=(column,),
    )


# --- models -------------------------------------------------------------------------------------


def normalized_sql(sql: str | None) -> str | None:
    """Comments dropped, whitespace collapsed, trailing semicolons removed: the SQL that runs."""
    if sql is None:
        return None
    return " ".join(_COMMENTS.sub(" ", sql).split()).rstrip("; ")


def _job_workflow(model: Any) -> str | None:
    # Which job runs the model is the registry's answer (the kinds it compiles into), never re-derived here.
    produced = produced_kinds(model)
    return next((_ARTIFACT_WORKFLOWS[kind] for kind in produced if kind in _ARTIFACT_WORKFLOWS), None)


def _model(name: str, old: Any, new: Any, consumers: Consumers) -> list[FieldChange]:
    fields = []
    if old.materialized != new.materialized:
        fields.append(
            FieldChange(
                field="materialized",
                before=old.materialized,
                after=new.materialized,
                classification=OPERATIONAL,
                reason="materialization changed",
                workflow="materialization_change",
                flows=True,
            )
        )
    elif old.executor != new.executor and old.sql and new.sql:
        fields.append(
            FieldChange(
                field="executor",
                before=old.executor,
                after=new.executor,
                classification=OPERATIONAL,
                reason="the job moves to another runner",
                workflow="executor_replacement",
                flows=True,
            )
        )
    if old.key != new.key:
        fields.append(
            FieldChange(
                field="key",
                before=old.key,
                after=new.key,
                classification=BREAKING,
                reason="output key changed: per-key order and partition placement change",
                flows=True,
            )
        )
    fields += _sql(old, new)
    fields += _contract(name, old.contract, new.contract, consumers)
    for attribute in ("parallelism", "checkpoint_interval_ms", "state_backend", "state_ttl_ms"):
        before = getattr(old.section("flink"), attribute, None)
        after = getattr(new.section("flink"), attribute, None)
        if before != after:
            fields.append(
                FieldChange(
                    field=f"flink.{attribute}",
                    before=before,
                    after=after,
                    classification=OPERATIONAL,
                    reason="Flink job setting changed",
                    workflow=_job_workflow(new) or "flink_savepoint_upgrade",
                )
            )
    if old.event_time != new.event_time:
        fields.append(
            FieldChange(
                field="event_time",
                before=_plain(old.event_time),
                after=_plain(new.event_time),
                classification=OPERATIONAL,
                reason="event time or watermark changed",
                workflow=_job_workflow(new),
                flows=True,
            )
        )
    fields += _sink(old.section("sink"), new.section("sink"))
    if old.section("gateway") != new.section("gateway"):
        fields.append(
            FieldChange(
                field="gateway",
                before=_plain(old.section("gateway")),
                after=_plain(new.section("gateway")),
                classification=BREAKING,
                reason="virtual topic changed: readers of the alias move",
                flows=True,
            )
        )
    return fields


def _sql(old: Any, new: Any) -> list[FieldChange]:
    if old.sql == new.sql:
        return []
    # The SQL that runs: references rendered to physical topics, so renaming a declaration whose topic
    # stays is no query change either.
    before = normalized_sql(old.rendered_sql or old.sql)
    after = normalized_sql(new.rendered_sql or new.sql)
    if before == after:
        return [
            FieldChange(
                field="sql",
                before=old.sql,
                after=new.sql,
                classification=NON_BREAKING,
                reason="formatting or references only: the normalized SQL that runs is unchanged",
            )
        ]
    old_where = where_clause(before) if before else None
    new_where = where_clause(after) if after else None
    if old_where != new_where:
        reason = f"filter predicate changed from {old_where or '(none)'!r} to {new_where or '(none)'!r}: "
        reason += "downstream readers receive different records"
    else:
        reason = "the query changed"
    workflow = _job_workflow(new)
    return [
        FieldChange(
            field="sql",
            before=before,
            after=after,
            classification=OPERATIONAL if workflow else NON_BREAKING,
            reason=reason,
            workflow=workflow,
            flows=True,
        )
    ]


def _contract(name: str, old: Any, new: Any, consumers: Consumers) -> list[FieldChange]:
    if old == new:
        return []
    if old is None:
        return [
            FieldChange(
                field="contract", before=None, after="declared", classification=NON_BREAKING, reason="contract added"
            )
        ]
    if new is None:
        return [
            FieldChange(
                field="contract",
                before="declared",
                after=None,
                classification=BREAKING,
                reason="contract removed: consumers lose its guarantee",
                flows=True,
            )
        ]
    fields = []
    if old.enforced and not new.enforced:
        fields.append(
            FieldChange(
                field="contract.enforced",
                before=True,
                after=False,
                classification=BREAKING,
                reason="contract compatibility lowered: no longer enforced",
                flows=True,
            )
        )
    elif new.enforced and not old.enforced:
        fields.append(
            FieldChange(
                field="contract.enforced",
                before=False,
                after=True,
                classification=NON_BREAKING,
                reason="contract now enforced",
            )
        )
    fields += _columns(
        name,
        {c.name: c.type for c in old.columns},
        {c.name: c.type for c in new.columns},
        consumers,
        "contract.columns",
    )
    return fields


def _sink(old: Any, new: Any) -> list[FieldChange]:
    if old == new:
        return []
    old_class, new_class = getattr(old, "connector", None), getattr(new, "connector", None)
    if old_class != new_class:
        return [
            FieldChange(
                field="sink.connector",
                before=old_class,
                after=new_class,
                classification=OPERATIONAL,
                reason="connector class changed",
                workflow="connector_replacement",
            )
        ]
    old_config, new_config = (old.config if old else {}), (new.config if new else {})
    moved = set(moved_secrets(old_config, new_config))  # reported as security changes
    keys = sorted(
        k for k in old_config.keys() | new_config.keys() if old_config.get(k) != new_config.get(k) and k not in moved
    )
    # Connector configs are compared by key; values may hold ${VAR} placeholders and are not echoed.
    return [
        FieldChange(
            field=f"sink.config.{k}",
            before=None,
            after=None,
            classification=NON_BREAKING,
            reason="connector config changed (updated in place by apply)",
        )
        for k in keys
    ]


def _source_schema(old: Any, new: Any) -> list[FieldChange]:
    a, b = old.schema, new.schema
    if a == b:
        return []
    fields = []
    for attribute in ("subject", "format"):
        before, after = getattr(a, attribute, None), getattr(b, attribute, None)
        if before != after:
            fields.append(
                FieldChange(
                    field=f"schema.{attribute}",
                    before=before,
                    after=after,
                    classification=BREAKING,
                    reason=f"schema {attribute} changed",
                    flows=True,
                )
            )
    before, after = getattr(a, "compatibility", None), getattr(b, "compatibility", None)
    if before != after:
        lowered = _lowered(before, after)
        fields.append(
            FieldChange(
                field="schema.compatibility",
                before=before,
                after=after,
                classification=BREAKING if lowered else NON_BREAKING,
                reason="schema compatibility lowered or turned" if lowered else "schema compatibility raised",
                flows=lowered,
            )
        )
    for attribute in ("definition", "version", "registry"):
        if getattr(a, attribute, None) != getattr(b, attribute, None):
            fields.append(
                FieldChange(
                    field=f"schema.{attribute}",
                    before=None,
                    after=None,
                    classification=NON_BREAKING,
                    reason=f"schema {attribute} changed",
                    flows=True,
                )
            )
    return fields


def _compatibility(level: str | None) -> tuple[int, str]:
    """(strength, direction); no level is the registry default, BACKWARD."""
    text = (level or "BACKWARD").upper()
    direction = text.removesuffix("_TRANSITIVE")
    return _COMPATIBILITY.get(direction, 0) * 2 + text.endswith("_TRANSITIVE"), direction


def _lowered(before: str | None, after: str | None) -> bool:
    """Weaker, or as strong in another direction (BACKWARD <-> FORWARD drops the guarantee readers had)."""
    (old, old_direction), (new, new_direction) = _compatibility(before), _compatibility(after)
    return new < old or (old_direction != new_direction and new <= old)


# --- metadata -----------------------------------------------------------------------------------


def _metadata(old: Any, new: Any) -> list[FieldChange]:
    return _non_breaking(_METADATA, old, new, lambda attribute: f"{attribute} changed")


def _declaration(kind: str, old: Any, new: Any) -> list[FieldChange]:
    attributes = sorted(a.name for a in old.__attrs_attrs__)

    def reason(attribute: str) -> str:
        if attribute in ("consumes", "depends_on"):
            return f"{attribute} {_moved(getattr(old, attribute), getattr(new, attribute))}"
        return f"{kind} declaration changed"

    return _non_breaking(attributes, old, new, reason)


def _moved(before: Any, after: Any) -> str:
    """``a, b → a, c`` for the inputs an exposure reads, with the columns when only those changed."""
    old, new = [r.name for r in before], [r.name for r in after]
    if old != new:
        return f"{', '.join(old) or '(none)'} → {', '.join(new) or '(none)'}"

    def columns(refs: Any) -> str:
        return "; ".join(f"{r.name}: {', '.join(c.name for c in r.columns) or 'every column'}" for r in refs)

    return f"columns {columns(before)} → {columns(after)}"


def _non_breaking(attributes: Iterable[str], old: Any, new: Any, reason: Callable[[str], str]) -> list[FieldChange]:
    """One non-breaking change per attribute whose value differs between the two sides."""
    return [
        FieldChange(
            field=attribute,
            before=_plain(getattr(old, attribute, None)),
            after=_plain(getattr(new, attribute, None)),
            classification=NON_BREAKING,
            reason=reason(attribute),
        )
        for attribute in attributes
        if getattr(old, attribute, None) != getattr(new, attribute, None)
    ]


def _unexplained(artifacts: list[dict[str, str]]) -> list[FieldChange]:
    """Compiled artifacts changed with no declared field changing: an upstream or a default did it."""
    fields = []
    for artifact in artifacts:
        workflow = _ARTIFACT_WORKFLOWS.get(artifact["kind"])
        fields.append(
            FieldChange(
                field=f"compiled.{artifact['kind']}",
                before=None,
                after=artifact["identity"],
                classification=OPERATIONAL if workflow else NON_BREAKING,
                reason=f"compiled {artifact['kind']} {artifact['status']} "
                "(an upstream declaration or a default changed)",
                workflow=workflow,
            )
        )
    return fields


def _plain(value: Any) -> Any:
    """attrs values as JSON-compatible data, for before/after."""
    if attrs.has(type(value)):
        return {k: _plain(v) for k, v in sorted(attrs.asdict(value, recurse=False).items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    return value
