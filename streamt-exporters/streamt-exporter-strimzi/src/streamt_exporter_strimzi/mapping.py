"""Compiled topic artifacts -> Strimzi ``KafkaTopic`` documents (``kafka.strimzi.io/v1``).

Strimzi 1.2.0 serves only ``v1``. ``metadata.name`` is the Kafka topic name
when that is a valid Kubernetes name; otherwise (dots, underscores, upper
case, too long) it is a readable lowercase form plus a short digest of the
real name, which goes to ``spec.topicName``. The digest keeps two topics that
differ only in such characters (``a.b`` and ``a_b``) from colliding.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from streamt.sdk import KIND_TOPIC, Artifact

API_VERSION = "kafka.strimzi.io/v1"
KIND = "KafkaTopic"
CLUSTER_LABEL = "strimzi.io/cluster"

# A DNS-1123 label: what Strimzi's topic operator accepts as a name without topicName.
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
NAME_MAX = 63
_DIGEST = 8


def is_kubernetes_name(name: str) -> bool:
    return len(name) <= NAME_MAX and _NAME.match(name) is not None


def resource_name(topic: str) -> str:
    if is_kubernetes_name(topic):
        return topic
    readable = re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", topic.lower())).strip("-")
    digest = hashlib.sha256(topic.encode("utf-8")).hexdigest()[:_DIGEST]
    readable = readable[: NAME_MAX - _DIGEST - 1].rstrip("-")
    return f"{readable}-{digest}" if readable else f"topic-{digest}"


def kafka_topic(artifact: Artifact, namespace: str, cluster: str) -> dict[str, Any]:
    assert artifact.kind == KIND_TOPIC
    topic = artifact.identity
    name = resource_name(topic)
    spec: dict[str, Any] = {}
    if name != topic:
        spec["topicName"] = topic
    if "partitions" in artifact.spec:
        spec["partitions"] = artifact.spec["partitions"]
    if "replication_factor" in artifact.spec:
        spec["replicas"] = artifact.spec["replication_factor"]
    if artifact.spec.get("config"):
        spec["config"] = dict(artifact.spec["config"])
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"labels": {CLUSTER_LABEL: cluster}, "name": name, "namespace": namespace},
        "spec": spec,
    }
