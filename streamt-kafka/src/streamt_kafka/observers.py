"""Observers: the live state of topics and subjects, for online plan and status.

The topic observer reads any number of topics in a constant number of admin
requests (``observe_topics``). The Schema Registry REST API has no batch
read, so subjects cost one request each (two when the schema changed: the
compatibility check), run a bounded number at a time over pooled connections;
external subjects are never read.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
from streamt.sdk import ABSENT, KIND_SCHEMA, KIND_TOPIC, PRESENT, Artifact, Codes, Observation, StreamtError

from streamt_kafka.topics_live import DesiredTopic, RequestCounter


def kafka_settings(runtime: Any) -> dict[str, Any]:
    """``runtime.kafka`` as the mapping ``admin_client`` takes (secrets stay in memory)."""
    return attrs.asdict(runtime.kafka)


def desired_topic(artifact: Artifact) -> DesiredTopic:
    spec = artifact.spec
    return DesiredTopic(
        name=artifact.identity,
        partitions=int(spec.get("partitions", 0)),
        replication_factor=int(spec.get("replication_factor", 0)),
        config=dict(spec.get("config") or {}),
    )


@attrs.define
class TopicObserver:
    runtime: Any
    counter: RequestCounter = attrs.field(factory=RequestCounter)
    kinds = (KIND_TOPIC,)

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        from streamt_kafka.admin import admin_client
        from streamt_kafka.topics_live import observe_topics

        with admin_client(kafka_settings(self.runtime)) as admin:
            return _classified(
                "read topics", observe_topics, admin, [desired_topic(a) for a in artifacts], self.counter
            )

    def adoption_review(self, artifact: Artifact) -> dict[str, Any]:
        """Partitions, replication factor and dynamic configuration shown before ``adopt`` claims the topic."""
        from streamt_kafka.admin import admin_client
        from streamt_kafka.adoption import topic_review

        with admin_client(kafka_settings(self.runtime)) as admin:
            return _classified("describe the topic", topic_review, admin, artifact.identity)

    def message_counts(self, names: list[str]) -> dict[str, int]:
        """Messages retained per topic (end minus beginning offsets), in two offset requests."""
        from streamt_kafka.lag import message_counts

        return _classified("read topic offsets", message_counts, kafka_settings(self.runtime), names, self.counter)

    def consumer_groups(self, names: list[str]) -> dict[str, dict[str, int]]:
        """Per consumer group, its total lag on each of ``names`` it has committed offsets for."""
        from streamt_kafka.lag import consumer_group_lag

        return _classified(
            "read consumer groups", consumer_group_lag, kafka_settings(self.runtime), names, self.counter
        )


def _classified(doing: str, read: Any, *args: Any) -> Any:
    """Run a read; a kafka-python failure becomes a secret-free structured error."""
    from streamt_kafka.admin import classify

    try:
        return read(*args)
    except StreamtError:
        raise
    except Exception as exc:
        raise classify(exc, doing) from None


def _observe_one(client: Any, artifact: Artifact) -> Observation:
    from streamt_kafka.registry_live import observe_subject

    spec = artifact.spec
    if "schema" in spec:
        return observe_subject(client, artifact.identity, spec["schema"], spec["format"], spec.get("compatibility"))
    # An external subject (status --include-external): existence and version only.
    latest = client.latest(artifact.identity)
    if latest is None:
        return Observation(ABSENT)
    return Observation(PRESENT, {"version": latest.get("version"), "id": latest.get("id")})


def registry_client(runtime: Any) -> Any:
    from streamt_kafka.registry_live import RegistryClient

    registry = runtime.schema_registry
    if registry is None or not registry.url:
        raise StreamtError(
            Codes.E208_MISSING_CONFIG,
            "Managed schema subjects need runtime.schema_registry.url.",
            "Set runtime.schema_registry for this environment, or declare the subject external.",
        )
    return RegistryClient(registry.url, registry.username, registry.password)


@attrs.define
class SchemaObserver:
    runtime: Any
    kinds = (KIND_SCHEMA,)

    def check_subjects(self, declared: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
        """``validate --check-schemas``: declared external subjects against the registry (read-only)."""
        from streamt_kafka.schema_check import check_subjects

        return check_subjects(registry_client(self.runtime), declared)

    def adoption_review(self, artifact: Artifact) -> dict[str, Any]:
        """Subject facts and content checksums (never the schema body) shown before ``adopt``."""
        from streamt_kafka.adoption import schema_review

        return schema_review(registry_client(self.runtime), artifact)

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        """One round of reads per subject (the registry has no batch read), ``POOL_SIZE`` subjects at a time
        over the client's pooled connections. Results keep the artifacts' order; the first failure (in that
        order) is raised, as a sequential walk would."""
        from streamt_kafka.registry_live import POOL_SIZE

        client = registry_client(self.runtime)
        if len(artifacts) <= 1:
            return {a.identity: _observe_one(client, a) for a in artifacts}
        with ThreadPoolExecutor(max_workers=POOL_SIZE, thread_name_prefix="streamt-registry") as pool:
            futures = [(a.identity, pool.submit(_observe_one, client, a)) for a in artifacts]
            return {identity: future.result() for identity, future in futures}
