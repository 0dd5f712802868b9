"""A bounded read of a failures topic: the violations continuous-test jobs wrote to it since a time.

One consumer without a group (nothing committed) seeks every partition to the first record at or
after ``since_ms`` (``offsets_for_times``), reads up to the end offsets taken at the start, at most
``MAX_VIOLATIONS`` records and ``TIMEOUT_SECONDS``, and keeps the rows of the tests asked for. A
record that is not a JSON object of the failure table's shape is ignored.
"""

from __future__ import annotations

import json
import time
from typing import Any

import attrs
from streamt.sdk import Codes, StreamtError

MAX_VIOLATIONS = 100_000
TIMEOUT_SECONDS = 15.0


@attrs.frozen
class Violation:
    test: str
    assertion: str
    column: str | None
    observed: str | None
    partition: int
    offset: int
    timestamp: int


def read_violations(runtime: Any, topic: str, since_ms: int, tests: set[str]) -> dict[str, list[Violation]]:
    from kafka import KafkaConsumer, TopicPartition

    kafka = runtime.kafka
    config: dict[str, Any] = {
        "bootstrap_servers": kafka.bootstrap_servers.split(","),
        "security_protocol": kafka.security_protocol.upper(),
        "request_timeout_ms": 15_000,
        "reconnect_backoff_max_ms": 1_000,
    }
    if kafka.sasl_mechanism:
        config.update(
            sasl_mechanism=kafka.sasl_mechanism,
            sasl_plain_username=kafka.sasl_username,
            sasl_plain_password=kafka.sasl_password,
        )
    try:
        consumer = KafkaConsumer(**config, group_id=None, enable_auto_commit=False)
    except Exception:  # kafka-python's connection errors; their text can carry the bootstrap list
        raise StreamtError(
            Codes.E406_CONNECTION_REFUSED,
            f"Kafka did not answer while reading {topic}.",
            "Check runtime.kafka.bootstrap_servers.",
        ) from None
    try:
        partitions = consumer.partitions_for_topic(topic)
        if not partitions:
            raise StreamtError(
                Codes.E208_MISSING_CONFIG,
                f"The violations topic {topic} does not exist.",
                "Run `streamt plan` and `streamt apply`: apply creates it with the test's job.",
            )
        tps = [TopicPartition(topic, p) for p in sorted(partitions)]
        ends = consumer.end_offsets(tps)
        starts = consumer.offsets_for_times({tp: since_ms for tp in tps})
        spans = {tp: (starts[tp].offset if starts[tp] else ends[tp], ends[tp]) for tp in tps}
        spans = {tp: span for tp, span in spans.items() if span[1] > span[0]}
        return _collect(consumer, spans, tests)
    finally:
        consumer.close(autocommit=False)


def _collect(consumer: Any, spans: dict[Any, tuple[int, int]], tests: set[str]) -> dict[str, list[Violation]]:
    found: dict[str, list[Violation]] = {}
    if not spans:
        return found
    consumer.assign(list(spans))
    for tp, (start, _) in spans.items():
        consumer.seek(tp, start)
    pending, read = set(spans), 0
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while pending and read < MAX_VIOLATIONS and time.monotonic() < deadline:
        for tp, batch in consumer.poll(timeout_ms=200, max_records=5_000).items():
            for record in batch:
                if record.offset >= spans[tp][1]:
                    continue
                read += 1
                violation = _parse(record, tp.partition)
                if violation is not None and violation.test in tests:
                    found.setdefault(violation.test, []).append(violation)
        for tp in list(pending):
            if consumer.position(tp) >= spans[tp][1]:
                pending.discard(tp)
                consumer.pause(tp)
    return found


def _parse(record: Any, partition: int) -> Violation | None:
    try:
        row = json.loads(record.value)
    except (TypeError, ValueError):
        return None
    if not isinstance(row, dict) or not isinstance(row.get("test_name"), str):
        return None
    observed = row.get("observed")
    return Violation(
        test=row["test_name"],
        assertion=str(row.get("assertion")),
        column=row.get("column_name"),
        observed=None if observed is None else str(observed),
        partition=partition,
        offset=record.offset,
        timestamp=record.timestamp,
    )
