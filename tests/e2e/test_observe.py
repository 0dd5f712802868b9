"""``streamt observe`` and ``status --lag`` against the devstack's real Kafka, Flink and Connect.

One pipeline per test run: a managed source topic -> a Flink job (real traffic) -> its topic ->
a FileStream sink connector. The connector's consumer group drains the job's topic, and a group
of the test's own reads the source topic with an exact, known lag. Fresh names per run; every
job, connector and topic the test creates is removed.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamt.cli import run

requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.kafka, pytest.mark.flink, pytest.mark.connect]

FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
SECRET = "obs-connect-secret-sentinel-3c1d"
STRING = "org.apache.kafka.connect.storage.StringConverter"
TRAFFIC = 200  # records produced while the job runs, after the first 40


class Pipeline:
    def __init__(self, root: Path, stack: dict[str, str]) -> None:
        self.suffix = uuid.uuid4().hex[:8]
        self.prefix = f"e2e-obs-{self.suffix}"
        self.job, self.sink = f"up_{self.suffix}", f"sink_{self.suffix}"
        self.connector = f"e2eobserve.default.{self.sink}"  # its live name, scoped by project and environment
        self.bootstrap, self.rest, self.connect = (
            stack["kafka_bootstrap"],
            stack["flink_rest_url"],
            stack["connect_url"],
        )
        self.path = root / self.suffix
        from streamt_testing import write_project

        write_project(self.path, {"stream_project.yml": self.project(stack, root)})

    def project(self, stack: dict[str, str], root: Path) -> dict[str, Any]:
        flink = {"rest_url": self.rest, "sql_gateway_url": stack["flink_sql_gateway_url"]}
        return {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "e2eobserve"},
            "runtime": {
                "kafka": {"bootstrap_servers": self.bootstrap},
                "flink": {"default": "local", "clusters": {"local": flink}},
                "connect": {"default": "main", "clusters": {"main": {"rest_url": self.connect}}},
            },
            "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
            "defaults": {"topic": {"partitions": 2, "replication_factor": 1}},
            "sources": [
                {
                    "name": "raw",
                    "topic": self.topic("raw"),
                    "ownership": {"mode": "managed"},
                    "columns": [{"name": "id", "type": "STRING"}, {"name": "name", "type": "STRING"}],
                }
            ],
            "models": [
                {
                    "name": self.job,
                    "materialized": "flink",
                    "sql": 'SELECT id, UPPER(name) AS name_upper FROM {{ source("raw") }}',
                    "advanced": {"topic": {"name": self.topic("upper")}, "flink": {"checkpoint_interval_ms": 2000}},
                },
                {
                    "name": self.sink,
                    "from": [{"ref": self.job}],
                    "sink": {
                        "connector": FILE_SINK,
                        "config": {
                            "file": str(root / f"{self.sink}.out"),
                            "tasks.max": 1,
                            "key.converter": STRING,
                            "value.converter": STRING,
                            "connection.password": SECRET,
                        },
                    },
                },
            ],
        }

    def topic(self, short: str) -> str:
        return f"{self.prefix}.{short}"

    def produce(self, count: int, per_second: float) -> None:
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=self.bootstrap)
        try:
            for i in range(count):
                value = json.dumps({"id": f"k{i}", "name": f"n{i}"}).encode()
                producer.send(self.topic("raw"), key=f"k{i}".encode(), value=value)
                if per_second:
                    time.sleep(1 / per_second)
            producer.flush()
        finally:
            producer.close()

    def consume_and_commit(self, group: str, count: int) -> None:
        """Read exactly ``count`` records of the source topic as ``group`` and commit them."""
        from kafka import KafkaConsumer

        consumer = KafkaConsumer(
            self.topic("raw"),
            bootstrap_servers=self.bootstrap,
            group_id=group,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        try:
            read, deadline = 0, time.monotonic() + 60
            while read < count and time.monotonic() < deadline:
                for records in consumer.poll(timeout_ms=1000, max_records=count - read).values():
                    read += len(records)
            assert read == count
            consumer.commit()
        finally:
            consumer.close()

    def cleanup(self) -> None:
        from kafka import KafkaAdminClient

        requests.delete(f"{self.connect}/connectors/{self.connector}", timeout=30)
        for job in requests.get(f"{self.rest}/jobs/overview", timeout=10).json()["jobs"]:
            # Flink job names are project-scoped (project/env/job); the bare name is the legacy form.
            named = job["name"] in (self.job, f"e2eobserve/default/{self.job}")
            if named and job["state"] not in ("FAILED", "CANCELED", "FINISHED"):
                requests.patch(f"{self.rest}/jobs/{job['jid']}?mode=cancel", timeout=10)
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            names = [t for t in admin.list_topics() if t.startswith(self.prefix + ".")]
            if names:
                admin.delete_topics(names, raise_errors=False)
            groups = [f"g{n}-{self.suffix}" for n in (1, 2, 3)]
            groups += [f"connect-{self.connector}", f"streamt.e2eobserve.default.{self.job}"]
            # A group that never committed does not exist: its error is expected, the others are deleted.
            with contextlib.suppress(Exception):
                admin.delete_consumer_groups(groups)
        finally:
            admin.close()


@pytest.fixture
def pipeline(tmp_path: Path, stack: dict[str, str]) -> Iterator[Callable[[], Pipeline]]:
    made: list[Pipeline] = []

    def make() -> Pipeline:
        made.append(Pipeline(tmp_path, stack))
        return made[-1]

    yield make
    for p in made:
        p.cleanup()


def resource(outcome: Any, kind: str, name: str) -> dict[str, Any]:
    rows = [r for m in outcome.data["models"] for r in m["resources"] if r["kind"] == kind and r["name"] == name]
    assert len(rows) == 1, outcome.envelope
    return rows[0]


def poll(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(1)
    raise AssertionError(f"{what} never happened; last: {last}")


def test_observe_a_running_pipeline_lag_that_drains_flink_throughput_and_connect(pipeline, streamt_cli) -> None:
    p = pipeline()
    applied = streamt_cli("apply", "-p", p.path)
    assert applied.ok, applied.envelope

    # Exact lag on the source topic: 40 records, one group read 15, another read none yet committed 40.
    p.produce(40, per_second=0)
    p.consume_and_commit(f"g1-{p.suffix}", 15)
    p.consume_and_commit(f"g2-{p.suffix}", 40)
    observed = streamt_cli("observe", "-p", p.path)
    assert observed.ok, observed.envelope
    raw = resource(observed, "topic", p.topic("raw"))
    assert raw["state"] == "OK" and raw["partitions"] == 2 and raw["messages"] == 40
    groups = {g["group"]: g for g in raw["consumer_groups"] if g["group"].endswith(p.suffix)}
    assert groups[f"g1-{p.suffix}"]["lag_messages"] == 25 and groups[f"g2-{p.suffix}"]["lag_messages"] == 0
    assert sum(groups[f"g1-{p.suffix}"]["partitions"].values()) == 25
    assert set(groups[f"g1-{p.suffix}"]["partitions"]) <= {"0", "1"}
    assert observed.data["units"]["lag_messages"] == "messages"

    # Real traffic through the Flink job while we look: records per second above zero, checkpoints.
    # Four seconds of it suffice: Flink's rate is averaged over a minute, so it stays above zero after.
    traffic = threading.Thread(target=p.produce, args=(TRAFFIC, 50.0), daemon=True)
    traffic.start()

    def flowing() -> dict[str, Any] | None:
        job = resource(streamt_cli("observe", "-p", p.path, "--model", p.job), "flink_job", p.job)
        return job if job["state"] == "RUNNING" and job["records_in_per_second"] > 0 else None

    job = poll(flowing, 90, "records flowing through the Flink job")
    assert 0 <= job["backpressure_ratio"] <= 1 and job["vertices"]
    assert job["records_out_per_second"] >= 0

    def checkpointed() -> dict[str, Any] | None:
        job = resource(streamt_cli("observe", "-p", p.path, "--model", p.job), "flink_job", p.job)
        return job if job.get("last_checkpoint_age_seconds") is not None else None

    assert poll(checkpointed, 60, "a completed checkpoint")["last_checkpoint_age_seconds"] >= 0

    connector = resource(streamt_cli("observe", "-p", p.path, "--model", p.sink), "connector", p.connector)
    assert connector["state"] == "RUNNING" and connector["tasks"] == ["RUNNING"]
    traffic.join(timeout=60)

    # The connector's group reads the job's topic; once traffic stops its lag drains to zero.
    def drained() -> dict[str, Any] | None:
        upper = resource(streamt_cli("observe", "-p", p.path), "topic", p.topic("upper"))
        group = [g for g in upper["consumer_groups"] if g["group"] == f"connect-{p.connector}"]
        return upper if group and group[0]["lag_messages"] == 0 and upper["messages"] == 40 + TRAFFIC else None

    upper = poll(drained, 120, "the connector's lag draining")
    assert upper["max_lag_messages"] == 0

    # show --diff on the running job and connector: in sync, with the plan's evidence, no secret value.
    job_diff = streamt_cli("show", "model", p.job, "-p", p.path, "--diff")
    assert job_diff.ok, job_diff.envelope
    actions = {(a["kind"], a["identity"]): a["action"] for a in job_diff.data["diff"]["artifacts"]}
    assert actions == {("topic", p.topic("upper")): "noop", ("flink_job", p.job): "noop"}
    sink_diff = streamt_cli("show", "model", p.sink, "-p", p.path, "--diff")
    assert [(a["kind"], a["action"]) for a in sink_diff.data["diff"]["artifacts"]] == [("connector", "noop")]
    assert SECRET not in json.dumps(sink_diff.envelope) + sink_diff.stdout + sink_diff.stderr

    # The text table names every resource with its state and the numbers that matter.
    out = io.StringIO()
    assert run(["observe", "-p", str(p.path)], stdout=out, stderr=io.StringIO()) == 0
    table = out.getvalue()
    assert table.startswith("MODEL") and f"flink_job {p.job}" in table and f"connector {p.connector}" in table
    assert f"g1-{p.suffix} {25 + TRAFFIC}" in table and "records" not in table.splitlines()[0]

    # status --lag: message counts and consumer lag per topic; --consumer-groups: per group.
    status = streamt_cli("status", "-p", p.path, "--lag", "--consumer-groups")
    assert status.ok, status.envelope
    (entry,) = [t for t in status.data["topics"] if t["name"] == p.topic("raw")]
    assert entry["message_count"] == 40 + TRAFFIC
    lag = 25 + TRAFFIC  # g1 read 15 of the first 40
    assert entry["consumer_lag"][f"g1-{p.suffix}"] == lag and entry["max_consumer_lag"] >= lag
    assert status.data["consumer_groups"][f"g1-{p.suffix}"] == {p.topic("raw"): lag}


def test_the_kafka_reader_batches_all_groups_and_topics(pipeline, streamt_cli) -> None:
    """Three groups on two topics cost one ListGroups, one OffsetFetch and one ListOffsets per end."""
    from streamt.compile import load_and_compile
    from streamt_kafka.runtime_reader import TopicRuntimeReader

    p = pipeline()
    applied = streamt_cli("apply", "-p", p.path)
    assert applied.ok, applied.envelope
    p.produce(12, per_second=0)
    for n, group in ((3, "g1"), (5, "g2"), (12, "g3")):
        p.consume_and_commit(f"{group}-{p.suffix}", n)
    loaded = load_and_compile(p.path, None)
    topics = [a for a in loaded.compiled.artifacts if a.kind == "topic"]
    reader = TopicRuntimeReader(loaded.project.runtime)
    seen = reader.read(topics)
    assert reader.counter.counts == {"describe_topics": 1, "list_offsets": 2, "list_groups": 1, "offset_fetch": 1}
    lags = {g["group"]: g["lag_messages"] for g in seen[p.topic("raw")]["consumer_groups"] if p.suffix in g["group"]}
    assert lags == {f"g1-{p.suffix}": 9, f"g2-{p.suffix}": 7, f"g3-{p.suffix}": 0}


def test_observe_an_unknown_model_and_an_unreachable_cluster(streamt_cli, streamt_project, monkeypatch) -> None:
    monkeypatch.setenv("STREAMT_KAFKA_CONNECT_TIMEOUT", "0.3")  # port 1 refuses at once; no need for 8 s of retries
    project = streamt_project({"stream_project.yml": {
        "project": {"name": "nowhere"},
        "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}},
        "models": [{"name": "orders", "materialized": "topic"}],
    }})  # fmt: skip
    missing = streamt_cli("observe", "-p", project, "--model", "ordres")
    assert missing.error_codes == ["E102_MODEL_NOT_FOUND"]
    down = streamt_cli("observe", "-p", project)
    assert down.ok, down.envelope  # observe reports, it does not fail: the resource is UNAVAILABLE
    (row,) = down.data["models"][0]["resources"]
    assert row["state"] == "UNAVAILABLE" and row["error"] == "E406_CONNECTION_REFUSED" and row["healthy"] is False
    assert down.data["healthy"] is False
