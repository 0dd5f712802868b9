"""The artifact kinds this plugin compiles: a Kafka topic per source and storing model, a subject per source schema."""

from __future__ import annotations

from streamt.sdk import KIND_SCHEMA, KIND_TOPIC, ArtifactKind

TOPIC = ArtifactKind(
    name=KIND_TOPIC,
    directory="topics",
    manifest_key="topics",
    rank=10,
    title="Topics",
    # dsl.md section 9.2: a `flink` model writes a Kafka topic of its own, as a `topic` model does.
    materializations=("topic", "flink"),
    sources=True,
)
SCHEMA = ArtifactKind(
    name=KIND_SCHEMA, directory="schemas", manifest_key="schemas", rank=20, title="Schemas", sources=True
)
KINDS = (TOPIC, SCHEMA)
