"""The devstack Kafka Connect worker runs a FileStream sink end to end."""

from __future__ import annotations

import time
import uuid

import pytest

requests = pytest.importorskip("requests")
kafka = pytest.importorskip("kafka")
from kafka.admin import KafkaAdminClient, NewTopic  # noqa: E402

pytestmark = [pytest.mark.connect, pytest.mark.kafka]


def _retry(fn, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        result = fn()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.5)


def test_filestream_sink(connect_url, kafka_bootstrap, tmp_path):
    plugins = {p["class"] for p in requests.get(f"{connect_url}/connector-plugins", timeout=10).json()}
    assert "org.apache.kafka.connect.file.FileStreamSinkConnector" in plugins
    topic = f"devstack-connect-{uuid.uuid4().hex[:8]}"
    name = f"sink-{topic}"
    out = tmp_path / "sink.txt"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(topic, 1, 1)])
    try:
        producer = kafka.KafkaProducer(bootstrap_servers=kafka_bootstrap)
        for line in ("alpha", "beta", "gamma"):
            producer.send(topic, line.encode())
        producer.flush(timeout=20)
        producer.close()
        config = {
            "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
            "tasks.max": "1",
            "topics": topic,
            "file": str(out),
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        }

        def create():  # 409 while the group rebalances: retry
            r = requests.put(f"{connect_url}/connectors/{name}/config", json=config, timeout=30)
            return r.status_code in (200, 201)

        assert _retry(create), "could not create the connector"

        def running():
            r = requests.get(f"{connect_url}/connectors/{name}/status", timeout=10)
            if r.status_code != 200:
                return False
            s = r.json()
            return s["connector"]["state"] == "RUNNING" and any(t["state"] == "RUNNING" for t in s["tasks"])

        assert _retry(running), requests.get(f"{connect_url}/connectors/{name}/status", timeout=10).text
        assert _retry(lambda: out.exists() and out.read_text().split() == ["alpha", "beta", "gamma"])
    finally:
        requests.delete(f"{connect_url}/connectors/{name}", timeout=30)
        admin.delete_topics([topic])
        admin.close()
