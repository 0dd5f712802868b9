"""The sample read against the real local broker: a span that ends in a gap still completes.

The read calls a partition done when its last record arrives or, where transaction markers leave
the span's last offsets without a record, when the consumer's position passes the span. These
topics end with a commit marker; the read must finish by position, never by its deadline.
"""

from __future__ import annotations

import json
import uuid

import pytest
from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from streamt_kafka.sample_read import read_recent
from streamt_kafka.topic_reads import wait_until_ready

pytestmark = pytest.mark.kafka


def _transactional_topic(bootstrap: str, records: int) -> str:
    """A one-partition topic of ``records`` committed in one transaction: offsets 0.. hold them, the
    last offset the commit marker."""
    name = f"sample-read-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(name, 1, 1)])
        assert wait_until_ready(admin, [name], 30) == []
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap, transactional_id=f"{name}-tx")
    producer.init_transactions()
    producer.begin_transaction()
    for i in range(records):
        producer.send(name, json.dumps({"i": i}).encode())
    producer.commit_transaction()
    producer.close()
    return name


@pytest.mark.parametrize(
    ("budget", "offsets"),
    [
        (3, [3, 4]),  # the span ends with the marker after two records
        (1, []),  # the span is the marker alone: no record ever arrives for it
        (10, [0, 1, 2, 3, 4]),
    ],
)
def test_a_span_ending_in_a_transaction_marker_is_read_completely(
    kafka_bootstrap: str, budget: int, offsets: list[int]
) -> None:
    topic = _transactional_topic(kafka_bootstrap, 5)
    try:
        sample = read_recent({"bootstrap_servers": kafka_bootstrap}, {topic: budget}, timeout_seconds=15)[topic]
        assert sample.complete, "the read ran into its deadline"
        assert [r.offset for r in sample.records] == offsets
    finally:
        admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        admin.delete_topics([topic])
        admin.close()
