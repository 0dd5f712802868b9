"""What ``streamt adopt`` shows about a live topic or subject before the claim.

Topics: partitions, replication factor and the dynamic (non-default)
configuration. Subjects: type, version, id, compatibility and content
checksums, never the schema body.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Artifact, sha256_checksum


def topic_review(admin: Any, name: str) -> dict[str, Any]:
    from kafka.admin import ConfigResource, ConfigResourceType

    (entry,) = admin.describe_topics([name])
    partitions = entry.get("partitions") or []
    replicas = {len(p.get("replica_nodes") or []) for p in partitions}
    described = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)], config_filter="modified")
    configs = described.get("topic", {}).get(name, {})
    dynamic = {
        key: str(value.get("value") if isinstance(value, dict) else value)
        for key, value in sorted(configs.items())
        if (value.get("value") if isinstance(value, dict) else value) is not None
    }
    return {
        "partitions": len(partitions),
        "replication_factor": max(replicas) if replicas else 0,
        "dynamic_config": dynamic,
    }


def schema_review(client: Any, artifact: Artifact) -> dict[str, Any]:
    from streamt_kafka.registry_live import _canonical

    latest = client.latest(artifact.identity) or {}
    schema_type = str(latest.get("schemaType") or "AVRO").upper()
    desired = artifact.spec.get("schema")
    return {
        "subject": artifact.identity,
        "type": schema_type,
        "version": latest.get("version"),
        "schema_id": latest.get("id"),
        # The level that governs the subject (its own, else the global one), as plan compares it.
        "compatibility": client.effective_compatibility(artifact.identity),
        "live_content_checksum": _content_checksum(_canonical(str(latest.get("schema") or ""), schema_type)),
        "desired_content_checksum": _content_checksum(_canonical(desired, schema_type)) if desired else None,
    }


def _content_checksum(text: str) -> str:
    return sha256_checksum(text.encode("utf-8"))
