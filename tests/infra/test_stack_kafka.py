"""The devstack Kafka broker: topics, produce/consume, and the SASL/PLAIN listener."""

from __future__ import annotations

import uuid

import pytest

kafka = pytest.importorskip("kafka")
from kafka.admin import KafkaAdminClient, NewTopic  # noqa: E402

pytestmark = pytest.mark.kafka


def _sasl(user: str, password: str) -> dict:
    return {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_plain_username": user,
        "sasl_plain_password": password,
    }


def test_create_topic_produce_consume(kafka_bootstrap):
    topic = f"devstack-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap, client_id="devstack-test")
    try:
        admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])
        assert topic in admin.list_topics()
        producer = kafka.KafkaProducer(bootstrap_servers=kafka_bootstrap)
        for i in range(3):
            producer.send(topic, key=b"k", value=f"v{i}".encode())
        producer.flush(timeout=20)
        producer.close()
        consumer = kafka.KafkaConsumer(
            topic,
            bootstrap_servers=kafka_bootstrap,
            auto_offset_reset="earliest",
            group_id=f"g-{topic}",
            consumer_timeout_ms=15000,
        )
        values = []
        for message in consumer:  # stops after consumer_timeout_ms without messages
            values.append(message.value)
            if len(values) == 3:
                break
        consumer.close()
        assert values == [b"v0", b"v1", b"v2"]
    finally:
        admin.delete_topics([topic])
        admin.close()


def test_auto_create_is_disabled(kafka_bootstrap):
    # A misspelt topic must not silently spring into existence.
    topic = f"devstack-missing-{uuid.uuid4().hex[:8]}"
    producer = kafka.KafkaProducer(bootstrap_servers=kafka_bootstrap, max_block_ms=3000)
    try:
        with pytest.raises(kafka.errors.KafkaTimeoutError):
            producer.send(topic, b"x").get(timeout=5)
    finally:
        producer.close(timeout=5)
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        assert topic not in admin.list_topics()
    finally:
        admin.close()


def test_sasl_plain_authenticates(kafka_sasl_bootstrap, kafka_sasl_credentials):
    admin = KafkaAdminClient(bootstrap_servers=kafka_sasl_bootstrap, **_sasl("alice", kafka_sasl_credentials["alice"]))
    try:
        assert isinstance(admin.list_topics(), list)
    finally:
        admin.close()


def test_sasl_plain_rejects_a_wrong_password(kafka_sasl_bootstrap):
    from streamt_devstack import probes

    host, port = kafka_sasl_bootstrap.rsplit(":", 1)
    error, message = probes.kafka_sasl_plain_login(host, int(port), "alice", "wrong")
    assert error == 58, message  # SASL_AUTHENTICATION_FAILED
    assert probes.kafka_sasl_plain_login(host, int(port), "alice", "alice-secret")[0] == 0


def test_raw_protocol_probe(kafka_bootstrap):
    from streamt_devstack import probes

    host, port = kafka_bootstrap.rsplit(":", 1)
    meta = probes.kafka_metadata(host, int(port))
    assert meta["brokers"][0]["port"] == int(port)
