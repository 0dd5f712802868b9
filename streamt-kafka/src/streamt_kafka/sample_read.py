"""Read the most recent records of topics, bounded in count, time and memory, without a consumer group.

Each topic's budget (its largest ``sample_size``) is shared across its partitions by water
filling: every partition gets an equal share of the budget, capped by what it retains, and what
a small partition cannot use goes to the others. So at most ``budget`` records per topic are
ever fetched and held, and exactly ``min(budget, retained)`` when the read finishes in time.
The consumer has no ``group_id`` and auto-commit off: nothing is committed, no group joined.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import attrs

POLL_MS = 200
MAX_POLL_RECORDS = 10_000


@attrs.frozen
class RawRecord:
    partition: int
    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None


@attrs.frozen
class TopicSample:
    """What was read from one topic: ``complete`` is false when the deadline stopped the read."""

    topic: str
    exists: bool
    partitions: int = 0
    records: tuple[RawRecord, ...] = ()
    complete: bool = True


def share(budget: int, retained: Mapping[int, int]) -> dict[int, int]:
    """Records to read per partition: equal shares capped by retention, leftovers redistributed."""
    left = dict(retained)
    out = {p: 0 for p in retained}
    remaining = budget
    while remaining > 0 and left:
        each, extra = divmod(remaining, len(left))
        for index, partition in enumerate(sorted(left)):
            take = min(left[partition], each + (1 if index < extra else 0))
            out[partition] += take
            left[partition] -= take
            remaining -= take
        left = {p: n for p, n in left.items() if n > 0}
        if each == 0 and extra == 0:
            break
    return out


def read_recent(settings: dict[str, Any], budgets: Mapping[str, int], timeout_seconds: float) -> dict[str, TopicSample]:
    """Up to ``budgets[topic]`` most recent records of each topic, within ``timeout_seconds`` overall."""
    from kafka import KafkaConsumer, TopicPartition

    from streamt_kafka.admin import client_config

    config = client_config(settings)
    consumer = KafkaConsumer(
        **config,
        group_id=None,
        enable_auto_commit=False,
        max_partition_fetch_bytes=1_048_576,
    )
    try:
        known = consumer.topics()
        samples: dict[str, TopicSample] = {}
        wanted: dict[Any, tuple[int, int]] = {}  # TopicPartition -> (start, end)
        for topic in sorted(budgets):
            partitions = consumer.partitions_for_topic(topic) if topic in known else None
            if not partitions:
                samples[topic] = TopicSample(topic, exists=False)
                continue
            samples[topic] = TopicSample(topic, exists=True, partitions=len(partitions))
            for partition in sorted(partitions):
                wanted[TopicPartition(topic, partition)] = (0, 0)
        if not wanted:
            return samples
        ends = consumer.end_offsets(list(wanted))
        begins = consumer.beginning_offsets(list(wanted))
        for topic, budget in budgets.items():
            parts = [tp for tp in wanted if tp.topic == topic]
            counts = share(budget, {tp.partition: max(0, ends[tp] - begins[tp]) for tp in parts})
            for tp in parts:
                wanted[tp] = (ends[tp] - counts[tp.partition], ends[tp])
        active = {tp: span for tp, span in wanted.items() if span[1] > span[0]}
        records: dict[str, list[RawRecord]] = {t: [] for t in samples}
        complete = _poll(consumer, active, records, time.monotonic() + timeout_seconds)
        for topic, sample in samples.items():
            if sample.exists:
                done = all(tp not in complete for tp in active if tp.topic == topic)
                ordered = tuple(sorted(records[topic], key=lambda r: (r.partition, r.offset)))
                samples[topic] = attrs.evolve(sample, records=ordered, complete=done)
        return samples
    finally:
        consumer.close(autocommit=False)


def _poll(
    consumer: Any, active: dict[Any, tuple[int, int]], records: dict[str, list[RawRecord]], deadline: float
) -> set[Any]:
    """Fetch each partition's span; returns the partitions left unfinished at the deadline."""
    if not active:
        return set()
    consumer.assign(list(active))
    for tp, (start, _) in active.items():
        consumer.seek(tp, start)
    pending = set(active)
    while pending and time.monotonic() < deadline:
        batches = consumer.poll(timeout_ms=POLL_MS, max_records=MAX_POLL_RECORDS)
        for tp, batch in batches.items():
            end = active[tp][1]
            for record in batch:
                if record.offset < end:
                    records[tp.topic].append(
                        RawRecord(tp.partition, record.offset, record.timestamp, record.key, record.value)
                    )
            if batch and batch[-1].offset >= end - 1:  # the span's last record: read, whatever gaps it had
                pending.discard(tp)
                consumer.pause(tp)
        # Transaction markers and compaction leave gaps: when the last record is not the span's last
        # offset, the position says "done". Asking for a position costs a walk over every assigned
        # partition, so only partitions fed and not yet done are asked each round, and every pending one
        # only after a round that delivered nothing at all (a span that ends in a gap delivers nothing
        # more; so once the others are read, the next round is empty).
        for tp in list(pending & set(batches) if batches else pending):
            if consumer.position(tp) >= active[tp][1]:
                pending.discard(tp)
                consumer.pause(tp)
    return pending
