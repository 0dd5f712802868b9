"""Message counts and consumer-group lag for ``status --lag`` / ``--consumer-groups``.

Counts are ``end - beginning`` offsets summed over partitions: an estimate
(compaction and transaction markers make it larger than the records a
consumer would read), which is why status prints them with ``~``. Each phase
is a bounded number of batched requests: one Metadata request for the
partitions, one ListOffsets per leader for each end, one ListGroups and one
OffsetFetch per coordinator.
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
    from streamt_kafka.admin import admin_client

    wanted = set(names)
    if not wanted:
        return {}
    with admin_client(settings) as admin:
        groups = sorted(g["group_id"] if isinstance(g, dict) else g[0] for g in admin.list_groups())
        counter.add("list_groups")
        if not groups:
            return {}
        committed = admin.list_group_offsets(dict.fromkeys(groups))
        counter.add("offset_fetch")
        _, latest = _offsets(admin, _partitions(admin, names, counter), counter)
    lag: dict[str, dict[str, int]] = {}
    for group in groups:
        for tp, meta in sorted((committed.get(group) or {}).items()):
            if tp.topic in wanted and tp in latest and meta.offset >= 0:
                per_topic = lag.setdefault(group, {})
                per_topic[tp.topic] = per_topic.get(tp.topic, 0) + max(0, latest[tp] - meta.offset)
    return lag
