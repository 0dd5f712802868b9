"""Topic metadata and configuration read from the decoded protocol responses.

kafka-python's ``describe_topics`` and ``describe_configs`` turn every response into nested dicts,
and ``describe_topics`` also asks for each topic's authorized operations and converts them into a
set of ACL enum members per topic: at 10,000 topics that is seconds of client CPU around one
request each. These reads send the same single request (authorized operations not asked for) and
take only the fields streamt compares from the decoded response.

Errors stay errors: a topic or configuration the broker answered with any error other than
"unknown topic", or did not answer for at all, raises; it never reads as absent or as an unset key.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from streamt_kafka.admin_requests import send

UNKNOWN_TOPIC = 3  # Kafka protocol error UNKNOWN_TOPIC_OR_PARTITION
_TOPIC_RESOURCE = 2  # ConfigResourceType.TOPIC
_NO_TOPIC_ID = "00000000-0000-0000-0000-000000000000"
# Between two metadata reads while created topics propagate (kafka-python's wait_for_topics waits as long).
POLL_SECONDS = 0.1


@attrs.frozen
class TopicMetadata:
    """What one Metadata answer says about one existing topic."""

    name: str
    partitions: int
    replication_factor: int
    topic_id: str | None
    # Every partition answered without error and with a leader: the topic is ready to use.
    ready: bool


def read_metadata(admin: Any, names: Iterable[str]) -> dict[str, TopicMetadata]:
    """One Metadata request for ``names``: the existing ones, by name. A name the broker calls unknown is
    left out (absent); any other topic error, or a name missing from the answer, raises."""
    from kafka.protocol.metadata import MetadataRequest

    wanted = sorted(set(names))
    if not wanted:
        return {}
    return _existing(send(admin, _metadata_request(MetadataRequest, wanted)), wanted, strict=True)


def _metadata_request(request_type: Any, names: list[str]) -> Any:
    return request_type(
        topics=[request_type.MetadataRequestTopic(name=name) for name in names],
        allow_auto_topic_creation=False,
        include_cluster_authorized_operations=False,
        include_topic_authorized_operations=False,
    )


def _existing(response: Any, wanted: list[str], strict: bool) -> dict[str, TopicMetadata]:
    """The topics of a Metadata response that exist. ``strict``: an error other than unknown topic, or a
    wanted name the response leaves out, raises; otherwise such a topic is simply not (yet) listed."""
    import kafka.errors as Errors

    answered: set[str] = set()
    existing: dict[str, TopicMetadata] = {}
    for topic in response.topics:
        answered.add(topic.name)
        code = topic.error_code
        if code == UNKNOWN_TOPIC:
            continue
        if code:
            if strict:
                raise Errors.for_code(code)()
            continue
        partitions = topic.partitions or []
        replicas = [len(p.replica_nodes or []) for p in partitions]
        existing[topic.name] = TopicMetadata(
            name=topic.name,
            partitions=len(partitions),
            replication_factor=max(replicas) if replicas else 0,
            topic_id=topic_id_text(topic.topic_id),
            ready=bool(partitions) and all(p.error_code == 0 and p.leader_id >= 0 for p in partitions),
        )
    if strict:
        missing = [name for name in wanted if name not in answered]
        if missing:
            raise Errors.KafkaError(f"the Metadata response left out {len(missing)} requested topic(s)")
    return existing


def read_configs(admin: Any, keys: Mapping[str, Iterable[str]]) -> dict[str, dict[str, str | None]]:
    """One DescribeConfigs request: per topic, the value of exactly the given keys (``None`` when the
    broker has no value or hides it as sensitive). A topic answered with an error, or not at all, raises."""
    import kafka.errors as Errors
    from kafka.protocol.admin import DescribeConfigsRequest

    asked = {name: sorted(set(wanted)) for name, wanted in sorted(keys.items()) if wanted}
    if not asked:
        return {}
    resource = DescribeConfigsRequest.DescribeConfigsResource
    request = DescribeConfigsRequest(
        resources=[
            resource(resource_type=_TOPIC_RESOURCE, resource_name=name, configuration_keys=wanted)
            for name, wanted in asked.items()
        ],
        include_synonyms=False,
    )
    values: dict[str, dict[str, str | None]] = {}
    for result in send(admin, request).results:
        if result.resource_name not in asked:
            continue
        if result.error_code:
            raise Errors.for_code(result.error_code)()
        live = {entry.name: entry.value for entry in result.configs or []}
        values[result.resource_name] = {
            key: None if live.get(key) is None else str(live[key]) for key in asked[result.resource_name]
        }
    if len(values) != len(asked):
        raise Errors.KafkaError(f"the DescribeConfigs response left out {len(asked) - len(values)} topic(s)")
    return values


def wait_until_ready(admin: Any, names: Iterable[str], timeout_seconds: float) -> list[str]:
    """Poll Metadata until every one of ``names`` exists with a leader on every partition; the names still
    not ready when ``timeout_seconds`` ran out (empty when all are).

    A round asks only for the first pending name, and for every pending name once that one is ready:
    the controller commits one CreateTopics request's records together, so its topics appear together,
    and asking for thousands of names ten times a second would load the broker that is publishing them.
    """
    pending = sorted(set(names))
    deadline = time.monotonic() + timeout_seconds
    while pending:
        if pending[0] in _ready(admin, pending[:1]):
            ready = _ready(admin, pending)
            pending = [name for name in pending if name not in ready]
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(POLL_SECONDS)
    return pending


def _ready(admin: Any, names: list[str]) -> set[str]:
    """Which of ``names`` Metadata shows ready now (a failed read is a round without news, not an answer)."""
    from kafka.protocol.metadata import MetadataRequest

    try:
        listed = _existing(send(admin, _metadata_request(MetadataRequest, names)), names, strict=False)
    except Exception:
        return set()
    return {name for name, meta in listed.items() if meta.ready}


def topic_id_text(value: Any) -> str | None:
    """A topic ID as streamt records it (the UUID's text), ``None`` when the broker gave none."""
    text = str(value) if value is not None else None
    return None if text in (None, "", _NO_TOPIC_ID, "AAAAAAAAAAAAAAAAAAAAAA") else text
