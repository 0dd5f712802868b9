"""The artifact kind this plugin compiles: a runner plan per ``topic`` model with SQL run by ``kafka_streams``."""

from __future__ import annotations

from streamt.sdk import KIND_KAFKA_STREAMS_JOB, ArtifactKind

KAFKA_STREAMS_JOB = ArtifactKind(
    name=KIND_KAFKA_STREAMS_JOB,
    directory="kafka_streams",
    manifest_key="kafka_streams_jobs",
    rank=40,
    title="Kafka Streams Jobs",
    named_by="name",
    executors=("kafka_streams",),
)
KINDS = (KAFKA_STREAMS_JOB,)
