"""Message counts and consumer-group lag for ``status --lag`` / ``--consumer-groups`` and ``observe``.

Counts are ``end - beginning`` offsets summed over partitions: an estimate
(compaction and transaction markers make it larger than the records a
consumer would read), which is why status prints them with ``~``. Each phase
is a bounded number of batched requests, never one per group or per topic:
one Metadata request for the partitions, one ListOffsets per leader for each
end (kafka-python's ``list_partition_offsets`` routes one request per leader),
one ListGroups, and one OffsetFetch per group coordinator for all groups at
once (``list_group_offsets`` with every group: OffsetFetch v8, KIP-709).
"""

from __future__ import annotations

from typing import Any

from streamt_kafka.topics_live import RequestCounter


def _partitions(admin: Any, names: list[str], counter: RequestCounter) -> list[Any]:
    from kafka import TopicPartition

    metadata = admin.describe_topics(sorted(names))
    counter.add("describe_topics")
    return [
        TopicPartition(entry["name"], p["partition_index"])
        for entry in metadata
        if entry.get("error_code", 0) == 0
        for p in entry.get("partitions") or []
    ]


def _offsets(admin: Any, partitions: list[Any], counter: RequestCounter) -> tuple[dict[Any, int], dict[Any, int]]:
    from kafka.admin import OffsetSpec

    if not partitions:
        return {}, {}
    earliest = admin.list_partition_offsets(dict.fromkeys(partitions, OffsetSpec.EARLIEST))
    latest = admin.list_partition_offsets(dict.fromkeys(partitions, OffsetSpec.LATEST))
    counter.add("list_offsets")
    counter.add("list_offsets")
    return {tp: o.offset for tp, o in earliest.items()}, {tp: o.offset for tp, o in latest.items()}


def message_counts(settings: dict[str, Any], names: list[str], counter: RequestCounter) -> dict[str, int]:
    from streamt_kafka.admin import admin_client

    if not names:
        return {}
    with admin_client(settings) as admin:
        earliest, latest = _offsets(admin, _partitions(admin, names, counter), counter)
    counts = dict.fromkeys(names, 0)
    for tp, end in latest.items():
        counts[tp.topic] += max(0, end - earliest.get(tp, 0))
    return counts


def consumer_group_lag(
    settings: dict[str, Any], names: list[str], counter: RequestCounter
) -> dict[str, dict[str, int]]:
    """``{group: {topic: lag}}`` for groups with committed offsets on ``names``."""
    lag: dict[str, dict[str, int]] = {}
    for topic, groups in topic_lag(settings, names, counter)["lag"].items():
        for group, partitions in groups.items():
            lag.setdefault(group, {})[topic] = sum(partitions.values())
    return dict(sorted(lag.items()))


def topic_lag(settings: dict[str, Any], names: list[str], counter: RequestCounter) -> dict[str, Any]:
    """Everything ``observe`` shows for topics, in the batched requests of the module docstring.

    ``{"partitions": {topic: n}, "messages": {topic: n}, "lag": {topic: {group: {partition: lag}}}}``;
    a topic that does not exist is absent from ``partitions``. A group's lag on a partition is the
    end offset minus its committed offset (never negative); partitions it never committed are left out.
    """
    from streamt_kafka.admin import admin_client

    if not names:
        return {"partitions": {}, "messages": {}, "lag": {}}
    with admin_client(settings) as admin:
        partitions = _partitions(admin, names, counter)
        earliest, latest = _offsets(admin, partitions, counter)
        groups = sorted(g["group_id"] if isinstance(g, dict) else g[0] for g in admin.list_groups())
        counter.add("list_groups")
        committed = admin.list_group_offsets(dict.fromkeys(groups)) if groups else {}
        if groups:
            counter.add("offset_fetch")
    counts: dict[str, int] = {}
    sizes: dict[str, int] = {}
    for tp in partitions:
        sizes[tp.topic] = sizes.get(tp.topic, 0) + 1
        counts[tp.topic] = counts.get(tp.topic, 0) + max(0, latest.get(tp, 0) - earliest.get(tp, 0))
    lag: dict[str, dict[str, dict[int, int]]] = {}
    for group in groups:
        for tp, meta in sorted((committed.get(group) or {}).items()):
            if tp in latest and meta.offset >= 0:
                lag.setdefault(tp.topic, {}).setdefault(group, {})[tp.partition] = max(0, latest[tp] - meta.offset)
    return {"partitions": sizes, "messages": counts, "lag": lag}
