"""Kafka topics keep the provider contract (streamt_testing.contracts), against the real broker."""

from __future__ import annotations

import secrets

import pytest
from streamt.project.model import KafkaRuntime, Runtime
from streamt.sdk import ASSUMED_ABSENT, KIND_TOPIC, Action, Artifact
from streamt_kafka.deployers import TopicDeployer
from streamt_kafka.observers import TopicObserver
from streamt_kafka.planning import TopicPlanner
from streamt_testing.contracts import ProviderContract

pytestmark = pytest.mark.kafka


def _topic(name: str, partitions: int = 1, config: dict | None = None) -> Artifact:
    spec = {"name": name, "partitions": partitions, "replication_factor": 1, "config": config or {}}
    return Artifact(KIND_TOPIC, name, name, spec, provider="streamt-kafka")


class TestKafkaTopicProvider(ProviderContract):
    @pytest.fixture
    def provider(self, kafka_bootstrap: str):
        runtime = Runtime(kafka=KafkaRuntime(bootstrap_servers=kafka_bootstrap))
        return TopicObserver(runtime), TopicPlanner(), TopicDeployer(runtime)

    @pytest.fixture
    def desired(self, provider):
        artifact = _topic(f"contract.topic.{secrets.token_hex(4)}")
        yield artifact
        _observer, _planner, deployer = provider
        deployer.rollback(Action.for_artifact("create", artifact, "", ASSUMED_ABSENT), artifact)  # clean up

    @pytest.fixture
    def changed(self):
        return lambda artifact: _topic(artifact.identity, partitions=2)

    @pytest.fixture
    def refused(self):
        return _topic(f"contract.refused.{secrets.token_hex(4)}", config={"cleanup.policy": "not-a-policy"})
