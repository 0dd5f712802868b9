"""The devstack Flink cluster, driven through the SQL Gateway REST API (v2 and newer)."""

from __future__ import annotations

import json
import time
import uuid

import pytest

requests = pytest.importorskip("requests")

pytestmark = pytest.mark.flink


class Session:
    def __init__(self, url: str):
        self.url = url
        r = requests.post(f"{url}/v2/sessions", json={"sessionName": "devstack-test"}, timeout=30)
        r.raise_for_status()
        self.handle = r.json()["sessionHandle"]

    def run(self, statement: str, timeout: float = 120.0) -> tuple[list[str], list[list]]:
        r = requests.post(f"{self.url}/v2/sessions/{self.handle}/statements", json={"statement": statement}, timeout=30)
        r.raise_for_status()
        op = r.json()["operationHandle"]
        uri = f"/v2/sessions/{self.handle}/operations/{op}/result/0?rowFormat=JSON"
        columns, rows = [], []
        deadline = time.monotonic() + timeout
        while uri:
            assert time.monotonic() < deadline, f"statement did not finish: {statement}"
            r = requests.get(self.url + uri, timeout=30)
            assert r.status_code == 200, r.text[:3000]
            body = r.json()
            if body["resultType"] == "NOT_READY":
                time.sleep(0.3)
                uri = body.get("nextResultUri", uri)
                continue
            columns = [c["name"] for c in body["results"]["columns"]] or columns
            rows += [d["fields"] for d in body["results"]["data"]]
            uri = body.get("nextResultUri") if body["resultType"] != "EOS" else None
        return columns, rows

    def close(self) -> None:
        requests.delete(f"{self.url}/v2/sessions/{self.handle}", timeout=30)


def test_rest_overview(flink_rest_url):
    overview = requests.get(f"{flink_rest_url}/overview", timeout=10).json()
    assert overview["taskmanagers"] >= 1 and overview["slots-total"] >= 1


def test_gateway_versions(flink_sql_gateway_url):
    versions = requests.get(f"{flink_sql_gateway_url}/api_versions", timeout=10).json()["versions"]
    assert "V2" in versions


def test_select_1(flink_sql_gateway_url):
    s = Session(flink_sql_gateway_url)
    try:
        columns, rows = s.run("SELECT 1 AS n, 'x' AS letter")
        assert columns == ["n", "letter"]
        assert rows == [[1, "x"]]
    finally:
        s.close()


@pytest.mark.kafka
def test_kafka_connector_reads_a_topic(flink_sql_gateway_url, kafka_bootstrap):
    kafka = pytest.importorskip("kafka")
    from kafka.admin import KafkaAdminClient, NewTopic

    topic = f"devstack-flink-{uuid.uuid4().hex[:8]}"
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(topic, 1, 1)])
    s = Session(flink_sql_gateway_url)
    try:
        producer = kafka.KafkaProducer(bootstrap_servers=kafka_bootstrap)
        for i in range(5):
            producer.send(topic, json.dumps({"id": i, "amount": i * 10}).encode())
        producer.flush(timeout=20)
        producer.close()
        s.run(f"""CREATE TABLE orders (id INT, amount INT) WITH (
            'connector' = 'kafka', 'topic' = '{topic}',
            'properties.bootstrap.servers' = '{kafka_bootstrap}',
            'properties.group.id' = 'devstack-{topic}',
            'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
            'format' = 'json')""")
        _columns, rows = s.run("SELECT COUNT(*) AS n, SUM(amount) AS total FROM orders", timeout=180)
        # A streaming aggregate emits retractions; the last row is the final result.
        assert rows[-1] == [5, 100], rows
    finally:
        s.close()
        admin.delete_topics([topic])
        admin.close()
