"""Planning one reviewed predicate-only runner replacement.

The only supported change of an existing runner: the old container runs a verified definition (its
plan file hashes to its checksum label and to the ownership record) that differs from the compiled
one in ``predicates`` alone, on the same image, application id and volume. Planning then emits an
``update`` with the replacement binding as evidence, plus the ``kafka_streams_reviewed_replacement``
safety blocker: generic apply (direct, ``--target``, ``--select``, ``--force``) stays refused
(``E417``), and only ``apply --plan`` of a format-6 file takes the coordinator past it.
Anything else (projections, schema, image, identity) is the ``kafka_streams_update`` blocker.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Artifact

REVIEWED_REASON = "kafka_streams_reviewed_replacement"
UPDATE_REASON = "kafka_streams_update"
CHANGEABLE = ("predicates",)


def candidate_name(spec: dict[str, Any], generation: int) -> str:
    """Generation 1 keeps the application id as its name; later generations add ``-g<N>``."""
    base = str(spec["container_name"])
    return base if generation <= 1 else f"{base}-g{generation}"


def changed_keys(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def binding(artifact: Artifact, row: dict[str, Any], definition: dict[str, Any], record: Any) -> dict[str, Any] | str:
    """The replacement evidence, or why this change is not a supported predicate-only replacement."""
    old = definition.get("spec")
    if not definition.get("verified") or not isinstance(old, dict):
        return "the running container's plan file cannot be verified against its checksum label"
    recorded = getattr(record, "artifact_checksum", None)
    if recorded != row["checksum"]:
        return "the ownership record does not name the definition the container runs"
    changed = changed_keys(old, artifact.spec)
    if not changed or any(key not in CHANGEABLE for key in changed):
        return "it changes " + ", ".join(k for k in changed if k not in CHANGEABLE) + " (only predicates may change)"
    spec = artifact.spec
    volume = str(spec["state_volume"])
    if definition.get("volumes") != [volume] or definition.get("image") != spec["runtime"]["image"]:
        return "the running container's image or volume is not the one its definition names"
    attributes = dict(getattr(record, "attributes", None) or {})
    generation = int(attributes.get("generation", 1))
    if definition.get("generation") != generation:
        return "the running container's generation is not the owned one"
    return {
        "application_id": spec["application_id"],
        "candidate_container_name": candidate_name(spec, generation + 1),
        "candidate_generation": generation + 1,
        "container_id": row["id"],
        "from_checksum": row["checksum"],
        "generation": generation,
        "image": spec["runtime"]["image"],
        "input_topic": spec["input"]["topic"],
        "to_checksum": artifact.checksum,
        "volume": volume,
    }
