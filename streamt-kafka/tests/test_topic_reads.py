"""Reading Metadata and DescribeConfigs responses: absent only when the broker says so (unit, no broker).

The broker is replaced by an admin client stand-in whose connection manager answers with real
kafka-python response messages, encoded and decoded as on the wire.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from kafka.errors import KafkaError, TopicAuthorizationFailedError
from kafka.protocol.admin import DescribeConfigsRequest, DescribeConfigsResponse
from kafka.protocol.metadata import MetadataRequest, MetadataResponse
from streamt.sdk import StreamtError
from streamt_kafka.observers import _classified
from streamt_kafka.topic_reads import read_configs, read_metadata, wait_until_ready
from streamt_kafka.topics_live import DesiredTopic, observe_topics

_Topic = MetadataResponse.MetadataResponseTopic
_Partition = _Topic.MetadataResponsePartition
_Result = DescribeConfigsResponse.DescribeConfigsResult
_Config = _Result.DescribeConfigsResourceResult
TOPIC_ID = uuid.UUID("7fb6f6c7-6b12-46ea-a615-2e12fdeec970")


def _metadata_topic(name: str, error: int = 0, partitions: int = 1, leader: int = 1) -> Any:
    parts = [
        _Partition(
            error_code=0, partition_index=i, leader_id=leader, leader_epoch=0, replica_nodes=[1, 2], isr_nodes=[1]
        )
        for i in range(partitions)
    ]
    return _Topic(error_code=error, name=name, topic_id=TOPIC_ID if not error else None, partitions=parts)


class Manager:
    """Answers each request with the next queued function of that request; records what was asked."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: list[Any] = []

    def send(self, request: Any) -> Any:
        raise AssertionError("only called through run")

    def run(self, send: Any, request: Any) -> Any:
        self.requests.append(request)
        response = self.answers.pop(0)(request)
        version = 12 if isinstance(response, MetadataResponse) else 4
        return type(response).decode(response.encode(version=version), version=version)


class Admin:
    def __init__(self, *answers: Any) -> None:
        self._manager = Manager(*answers)


def metadata(*topics: Any) -> Any:
    return lambda request: MetadataResponse(brokers=[], cluster_id="c", controller_id=1, topics=list(topics))


def configs(*results: Any) -> Any:
    return lambda request: DescribeConfigsResponse(throttle_time_ms=0, results=list(results))


def _config_result(name: str, error: int = 0, **values: str | None) -> Any:
    entries = [
        _Config(name=k.replace("_", "."), value=v, read_only=False, config_source=1, is_sensitive=False)
        for k, v in values.items()
    ]
    return _Result(error_code=error, error_message=None, resource_type=2, resource_name=name, configs=entries)


def test_existing_and_unknown_topics_in_one_request_without_authorized_operations() -> None:
    admin = Admin(metadata(_metadata_topic("a", partitions=3), _metadata_topic("b", error=3)))
    found = read_metadata(admin, ["b", "a"])
    assert list(found) == ["a"]
    assert (found["a"].partitions, found["a"].replication_factor, found["a"].topic_id) == (3, 2, str(TOPIC_ID))
    (request,) = admin._manager.requests
    assert isinstance(request, MetadataRequest) and [t.name for t in request.topics] == ["a", "b"]
    assert request.include_topic_authorized_operations is False and request.allow_auto_topic_creation is False


def test_a_topic_error_other_than_unknown_is_never_absent() -> None:
    with pytest.raises(TopicAuthorizationFailedError):
        read_metadata(Admin(metadata(_metadata_topic("a", error=29))), ["a"])
    # Through the observer it is a structured, secret-free error.
    with pytest.raises(StreamtError) as refused:
        _classified(
            "read topics", observe_topics, Admin(metadata(_metadata_topic("a", error=29))), [DesiredTopic("a", 1, 1)]
        )
    assert refused.value.diagnostics[0].code.code.startswith("E404")


def test_a_topic_left_out_of_the_answer_is_an_error() -> None:
    with pytest.raises(KafkaError):
        read_metadata(Admin(metadata(_metadata_topic("a"))), ["a", "b"])


def test_configs_are_exactly_the_asked_keys_and_an_error_raises() -> None:
    admin = Admin(configs(_config_result("a", retention_ms="3600000"), _config_result("b", cleanup_policy=None)))
    values = read_configs(admin, {"a": ["retention.ms", "segment.ms"], "b": ["cleanup.policy"]})
    assert values == {"a": {"retention.ms": "3600000", "segment.ms": None}, "b": {"cleanup.policy": None}}
    (request,) = admin._manager.requests
    assert isinstance(request, DescribeConfigsRequest)
    assert [(r.resource_name, r.configuration_keys) for r in request.resources] == [
        ("a", ["retention.ms", "segment.ms"]),
        ("b", ["cleanup.policy"]),
    ]
    with pytest.raises(TopicAuthorizationFailedError):
        read_configs(Admin(configs(_config_result("a", error=29))), {"a": ["retention.ms"]})
    with pytest.raises(KafkaError):
        read_configs(Admin(configs(_config_result("a", retention_ms="1"))), {"a": ["retention.ms"], "b": ["x"]})


def test_observe_is_two_requests_and_reads_shape_id_and_config() -> None:
    admin = Admin(
        metadata(_metadata_topic("a", partitions=2), _metadata_topic("gone", error=3)),
        configs(_config_result("a", retention_ms="7200000")),
    )
    wanted = [DesiredTopic("a", 2, 2, {"retention.ms": "3600000"}), DesiredTopic("gone", 1, 1, {"retention.ms": "1"})]
    seen = observe_topics(admin, wanted)
    assert seen["gone"].status == "absent"
    assert seen["a"].spec == {
        "name": "a",
        "partitions": 2,
        "replication_factor": 2,
        "config": {"retention.ms": "7200000"},
        "topic_id": str(TOPIC_ID),
    }
    # Configs are asked only for the topics that exist.
    assert [r.resource_name for r in admin._manager.requests[1].resources] == ["a"]


def test_waiting_probes_one_name_then_asks_again_only_for_topics_not_ready() -> None:
    admin = Admin(
        metadata(_metadata_topic("a")),  # probe: the first pending name is ready...
        metadata(_metadata_topic("a"), _metadata_topic("b", leader=-1), _metadata_topic("c", error=3)),  # ...all
        metadata(_metadata_topic("b")),
        metadata(_metadata_topic("b"), _metadata_topic("c", error=5)),
        metadata(_metadata_topic("c", error=3)),  # probe: not yet, so no round for every name
        metadata(_metadata_topic("c")),
        metadata(_metadata_topic("c")),
    )
    assert wait_until_ready(admin, ["c", "b", "a"], timeout_seconds=5) == []
    asked = [[t.name for t in r.topics] for r in admin._manager.requests]
    assert asked == [["a"], ["a", "b", "c"], ["b"], ["b", "c"], ["c"], ["c"], ["c"]]


def test_waiting_gives_up_at_the_deadline_with_the_pending_names() -> None:
    admin = Admin(*[metadata(_metadata_topic("a", error=3))] * 3)
    assert wait_until_ready(admin, ["a"], timeout_seconds=0) == ["a"]
