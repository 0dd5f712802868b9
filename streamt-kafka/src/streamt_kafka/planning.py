"""Planners for topics and subjects: desired artifact + observation -> actions.

Pure functions of their inputs. They compare declared keys only (a broker
default is never drift), turn a partition decrease (and a replication-factor
change) into a safety blocker instead of an update, and never plan a delete
(removal is a tombstone).
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import (
    ABSENT,
    CREATE,
    KIND_SCHEMA,
    KIND_TOPIC,
    NOOP,
    PRESENT,
    UNSET,
    UPDATE,
    Action,
    Artifact,
    Observation,
    SafetyBlocker,
    shown,
)

from streamt_kafka.topics import describe


def changed_keys(desired: dict[str, Any], live: dict[str, Any]) -> dict[str, Any]:
    """Declared keys whose live value differs; ``config`` is compared per declared entry."""
    changes: dict[str, Any] = {}
    for key, want in sorted(desired.items()):
        have = live.get(key)
        if key == "config" and isinstance(want, dict):
            have = have if isinstance(have, dict) else {}
            for name, value in sorted(want.items()):
                if have.get(name) != value:
                    changes[f"config.{name}"] = {"from": have.get(name), "to": value}
        elif have != want:
            changes[key] = {"from": have, "to": want}
    return changes


class TopicPlanner:
    kinds = (KIND_TOPIC,)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        if observation.status == ABSENT:
            return [Action.for_artifact(CREATE, artifact, describe(artifact.spec), observation)]
        if observation.status != PRESENT:
            raise ValueError(f"cannot plan topic {artifact.identity} from a {observation.status} observation")
        live = observation.spec or {}
        recreated = _recreated(artifact, live, record)
        # A live topic's ID goes into the record this plan writes (kept from the record otherwise).
        evidence = {"record_attributes": {"topic_id": live["topic_id"]}} if "topic_id" in live and not recreated else {}
        changes = changed_keys(artifact.spec, {k: v for k, v in live.items() if k != "topic_id"})
        if not changes:
            return [Action.for_artifact(NOOP, artifact, "no changes", observation, **evidence), *recreated]
        summary = ", ".join(f"{k}: {shown(v['from'], UNSET)} → {shown(v['to'], UNSET)}" for k, v in changes.items())
        out: list[Any] = [Action.for_artifact(UPDATE, artifact, summary, observation, changes=changes, **evidence)]
        out += recreated
        partitions = changes.get("partitions")
        if partitions and isinstance(partitions["from"], int) and partitions["to"] < partitions["from"]:
            before, after = partitions["from"], partitions["to"]
            message = f"Kafka cannot reduce partitions of '{artifact.identity}' ({before} → {after})."
            fix = f"keep at least {before} partitions, or declare a new topic for {after}"
            out.append(SafetyBlocker("kafka_partition_reduction", KIND_TOPIC, artifact.identity, message, fix))
        if "replication_factor" in changes:
            # Changing the replication factor is a partition reassignment, which apply does not do.
            message = f"Apply cannot change the replication factor of '{artifact.identity}'."
            fix = "keep the live replication factor (reassign with Kafka's own tools), or declare a new topic"
            out.append(SafetyBlocker("kafka_replication_factor_change", KIND_TOPIC, artifact.identity, message, fix))
        return out


def _recreated(artifact: Artifact, live: dict[str, Any], record: Any) -> list[SafetyBlocker]:
    """A blocker when the owned topic's ID is not the one streamt recorded: it is another topic now."""
    owned = (getattr(record, "attributes", None) or {}).get("topic_id")
    if owned is None or live.get("topic_id") in (None, owned):
        return []
    message = (
        f"Topic '{artifact.identity}' was deleted and recreated outside streamt (its topic ID is not the one "
        "recorded in ownership state): it is not the topic streamt owns, and its data may be gone."
    )
    return [SafetyBlocker("kafka_topic_recreated", KIND_TOPIC, artifact.identity, message)]


class SchemaPlanner:
    """Subjects are compared by the registry, not key by key.

    The observation (``registry_live.observe_subject``) says whether the
    latest registered schema is identical to the compiled one and, if not,
    whether the subject's compatibility rule accepts it: identical → noop,
    compatible → update (a new version), incompatible → update plus the
    ``schema_incompatible`` blocker (reviewable, never applied). A declared
    ``compatibility`` level that differs from the live one is an update too
    (``changes.compatibility``); the deployer sets it before registering.
    """

    kinds = (KIND_SCHEMA,)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        fmt = artifact.spec.get("format", "")
        if observation.status == ABSENT:
            level = artifact.spec.get("compatibility")
            summary = f"{fmt}, new subject" + (f", compatibility {level}" if level else "")
            return [Action.for_artifact(CREATE, artifact, summary, observation)]
        if observation.status != PRESENT:
            raise ValueError(f"cannot plan subject {artifact.identity} from a {observation.status} observation")
        live = observation.spec or {}
        declared = artifact.spec.get("compatibility")
        changes = {}
        if declared and declared != live.get("compatibility"):
            changes["compatibility"] = {"from": live.get("compatibility"), "to": declared}
        if live.get("identical") and not changes:
            return [Action.for_artifact(NOOP, artifact, "no changes", observation)]
        version = live.get("version")
        parts = [] if live.get("identical") else [f"new schema version after v{version}"]
        parts += [f"compatibility: {c['from']} → {c['to']}" for c in changes.values()]
        evidence = {"changes": changes} if changes else {}
        out: list[Any] = [Action.for_artifact(UPDATE, artifact, ", ".join(parts), observation, **evidence)]
        if not live.get("compatible"):
            message = (
                f"The compiled schema of subject '{artifact.identity}' is incompatible with its latest "
                f"registered version (v{version}) under the subject's compatibility rule."
            )
            fix = "make the schema change compatible with the subject's rule, or publish it under a new subject"
            out.append(SafetyBlocker("schema_incompatible", KIND_SCHEMA, artifact.identity, message, fix))
        return out
