"""Reading and changing Kafka topics in batches.

Observing N topics costs two admin requests whatever N is: one Metadata
request for partitions and replicas, one DescribeConfigs request for exactly
the config keys the artifacts declare (so broker defaults and keys streamt
does not manage never show up as drift). Mutations are batched the same way:
one CreateTopics, one CreatePartitions and one IncrementalAlterConfigs request
per apply step, with a per-topic outcome for each.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs
from streamt.sdk import ABSENT, PRESENT, Observation

from streamt_kafka.admin_requests import send_to_controller
from streamt_kafka.topic_reads import read_configs, read_metadata, topic_id_text

UNKNOWN_OUTCOME = "UnknownOutcome"


@attrs.frozen
class DesiredTopic:
    """The part of a topic artifact that is compared with the live topic."""

    name: str
    partitions: int
    replication_factor: int
    config: Mapping[str, str] = attrs.field(factory=dict)


@attrs.define
class RequestCounter:
    """How many admin requests each phase sent (benchmarks read it)."""

    counts: dict[str, int] = attrs.field(factory=dict)

    def add(self, phase: str) -> None:
        self.counts[phase] = self.counts.get(phase, 0) + 1


def observe_topics(
    admin: Any, desired: Iterable[DesiredTopic], counter: RequestCounter | None = None
) -> dict[str, Observation]:
    """Observations for every desired topic, in two requests (``topic_reads``: an error is never absent)."""
    wanted = {topic.name: topic for topic in desired}
    if not wanted:
        return {}
    present = read_metadata(admin, wanted)
    if counter is not None:
        counter.add("describe_topics")
    keys = {name: wanted[name].config for name in sorted(present) if wanted[name].config}
    configs = read_configs(admin, keys) if keys else {}
    if keys and counter is not None:
        counter.add("describe_configs")
    observations: dict[str, Observation] = {}
    for name, topic in wanted.items():
        meta = present.get(name)
        if meta is None:
            observations[name] = Observation(ABSENT)
            continue
        live_config = configs.get(name, {})
        spec: dict[str, Any] = {
            "name": name,
            "partitions": meta.partitions,
            "replication_factor": meta.replication_factor,
            "config": {key: live_config.get(key) for key in sorted(topic.config)},
        }
        # The topic's identity, not just its name: a topic deleted and recreated with the same shape
        # has a new ID, so a reviewed plan (whose evidence holds it) no longer matches the live one.
        if meta.topic_id is not None:
            spec["topic_id"] = meta.topic_id
        observations[name] = Observation(PRESENT, spec)
    return observations


def create_topics(
    admin: Any, topics: Iterable[DesiredTopic], counter: RequestCounter | None = None
) -> dict[str, str | None]:
    """Create topics in one request; per topic ``None`` on success or the error class name."""
    return create_topics_with_ids(admin, topics, counter)[0]


def create_topics_with_ids(
    admin: Any, topics: Iterable[DesiredTopic], counter: RequestCounter | None = None
) -> tuple[dict[str, str | None], dict[str, str]]:
    """``create_topics``, plus the ID the broker gave each created topic (for the ownership record).

    The CreateTopics request kafka-python would send, read straight from the decoded response: the
    answer carries each new topic's full configuration, which kafka-python turns into dicts (seconds
    of client CPU per thousand topics) and streamt never reads. The broker waits for the creates up to
    the client's request timeout."""
    from kafka.protocol.admin import CreateTopicsRequest

    wanted = {t.name: t for t in topics}
    if not wanted:
        return {}, {}
    creatable = CreateTopicsRequest.CreatableTopic
    request = CreateTopicsRequest(
        topics=[
            creatable(
                name=t.name,
                num_partitions=t.partitions,
                replication_factor=t.replication_factor,
                assignments=[],
                configs=[
                    creatable.CreatableTopicConfig(name=key, value=str(value))
                    for key, value in sorted(t.config.items())
                ],
            )
            for t in wanted.values()
        ],
        timeout_ms=admin.config["request_timeout_ms"],
        validate_only=False,
    )
    response = send_to_controller(admin, request, lambda r: [t.error_code for t in r.topics])
    if counter is not None:
        counter.add("create_topics")
    errors = _per_topic_errors(
        {"topics": [{"name": t.name, "error_code": t.error_code} for t in response.topics]}, wanted
    )
    ids: dict[str, str] = {}
    for entry in response.topics:
        topic_id = topic_id_text(entry.topic_id)
        if errors.get(entry.name, UNKNOWN_OUTCOME) is None and topic_id is not None:
            ids[entry.name] = topic_id
    return errors, ids


def increase_partitions(
    admin: Any, totals: Mapping[str, int], counter: RequestCounter | None = None
) -> dict[str, str | None]:
    if not totals:
        return {}
    response = admin.create_partitions(dict(sorted(totals.items())), raise_errors=False)
    if counter is not None:
        counter.add("create_partitions")
    return _per_topic_errors(response, totals)


def alter_topic_configs(
    admin: Any, changes: Mapping[str, Mapping[str, str]], counter: RequestCounter | None = None
) -> dict[str, str | None]:
    """Set only the given keys (incremental), never resetting other keys."""
    from kafka.admin import ConfigResource, ConfigResourceType

    if not changes:
        return {}
    resources = [
        ConfigResource(ConfigResourceType.TOPIC, name, configs={k: ("SET", str(v)) for k, v in sorted(keys.items())})
        for name, keys in sorted(changes.items())
    ]
    response = admin.alter_configs(resources, raise_on_unknown=False, incremental=True)
    if counter is not None:
        counter.add("alter_configs")
    return {name: _alter_outcome(response, name) for name in changes}


def delete_topics(admin: Any, names: Iterable[str], counter: RequestCounter | None = None) -> dict[str, str | None]:
    """Delete topics in one request (rollback of what this run created only)."""
    names = sorted(names)
    if not names:
        return {}
    response = admin.delete_topics(names, raise_errors=False)
    if counter is not None:
        counter.add("delete_topics")
    return _per_topic_errors(response, names)


def _per_topic_errors(response: Any, names: Iterable[str]) -> dict[str, str | None]:
    """Per topic: ``None`` when the broker reported success, else the error class name.

    A topic missing from the response keeps ``UnknownOutcome``: the caller must
    treat it as unknown, never as success.
    """
    import kafka.errors as Errors

    results: dict[str, str | None] = dict.fromkeys(names, UNKNOWN_OUTCOME)
    if isinstance(response, dict):
        entries = [(e.get("name"), e.get("error_code")) for e in response.get("topics", [])]
    else:
        entries = [(getattr(e, "name", None), getattr(e, "error_code", None)) for e in getattr(response, "results", [])]
    for name, code in entries:
        if name in results and code is not None:
            error = Errors.for_code(code)
            results[name] = None if error is Errors.NoError else error.__name__
    return results


def _alter_outcome(response: Any, name: str) -> str | None:
    # kafka-python answers incremental alters as {"topic": {name: "OK" | "<error text>"}};
    # only the error class is kept, the broker's text may name internals.
    value = response.get("topic", {}).get(name) if isinstance(response, dict) else None
    if value == "OK":
        return None
    if isinstance(value, str) and "Error" in value:
        return value.split(":", 1)[0].split("] ")[-1].strip()
    return UNKNOWN_OUTCOME
