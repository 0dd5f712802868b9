"""The names of the artifact kinds streamt's own plugins register, for code that reads artifacts.

Names only: a plugin registers each kind it compiles (``streamt_artifact_kinds``) with its
directory, manifest key and rank, and core lays out, orders and dispatches by that registry, not by
these names. They are here, exported by ``streamt.sdk``, because exporters and other readers of a
compiled project (which depend on streamt-core alone) look artifacts up by kind.
"""

from __future__ import annotations

KIND_TOPIC = "topic"
KIND_SCHEMA = "schema"
KIND_FLINK_JOB = "flink_job"
KIND_CONNECTOR = "connector"
KIND_GATEWAY_RULE = "gateway_rule"
KIND_KAFKA_STREAMS_JOB = "kafka_streams_job"
KIND_TEST_JOB = "test_job"
KIND_CONNECTOR_REMOVAL = "connector_removal"
KIND_GATEWAY_RULE_REMOVAL = "gateway_rule_removal"
