"""Topic artifacts for sources and for models that store data in Kafka.

A managed topic's spec is complete (partitions, replication factor, configs
after ``defaults:``), because streamt creates it. An external or adopted
topic records only what its declaration states: streamt never creates an
external topic, and it compares an adopted one on declared keys only, so a
broker default can never show up as drift.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import KIND_TOPIC, Artifact, Model, Source

PROVIDER = "streamt-kafka"


def config_value(value: Any) -> str:
    """Kafka topic configs are strings; ``3`` and ``"3"`` must compile to the same bytes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _configs(*layers: dict[str, Any]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for layer in layers:
        merged.update({str(k): config_value(v) for k, v in layer.items()})
    return dict(sorted(merged.items()))


def source_topic(project: Any, source: Source) -> Artifact:
    mode = source.ownership.mode
    spec: dict[str, Any] = {"name": source.topic}
    if mode == "managed":
        spec.update(_defaults(project))
    return Artifact(KIND_TOPIC, source.name, source.topic, spec, ownership=mode, provider=PROVIDER)


def model_topic(project: Any, model: Model) -> Artifact:
    """The topic a model writes (one whose materialization ``kinds.TOPIC`` names)."""
    mode = model.ownership.mode
    declared = model.topic
    spec: dict[str, Any] = {"name": model.topic_name}
    if mode == "managed":
        spec.update(_defaults(project))
        spec["config"] = _configs(project.defaults.topic_config, declared.config)
    elif declared.config:
        spec["config"] = _configs(declared.config)
    if declared.partitions is not None:
        spec["partitions"] = declared.partitions
    if declared.replication_factor is not None:
        spec["replication_factor"] = declared.replication_factor
    return Artifact(KIND_TOPIC, model.name, model.topic_name, spec, ownership=mode, provider=PROVIDER)


def _defaults(project: Any) -> dict[str, Any]:
    defaults = project.defaults
    return {
        "config": _configs(defaults.topic_config),
        "partitions": defaults.partitions,
        "replication_factor": defaults.replication_factor,
    }


def describe(spec: dict[str, Any]) -> str:
    """``3 partitions, rf=1`` as the plan shows a topic (declared keys only)."""
    parts = []
    if "partitions" in spec:
        parts.append(f"{spec['partitions']} partition{'s' if spec['partitions'] != 1 else ''}")
    if "replication_factor" in spec:
        parts.append(f"rf={spec['replication_factor']}")
    return ", ".join(parts)
