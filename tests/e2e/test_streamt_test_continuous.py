"""Continuous tests through real Flink: deployed by `apply` like any job, reported by `test` from the
live job state and the violations it wrote to its own failures topic after deployment.

Each test uses fresh topic and test names and cancels the jobs it created (the TaskManager has 4 slots).
Nothing is created by hand: apply creates the test's failures topic,
`_streamt_test_failures.<project>.<env>.<test>`, with its job; cleanup deletes it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from streamt_testing import run_cli, write_project

pytestmark = [pytest.mark.kafka, pytest.mark.flink]


class Project:
    def __init__(self, root: Path, bootstrap: str, rest: str, gateway: str, flink: bool = True) -> None:
        self.suffix = uuid.uuid4().hex[:8]
        self.path, self.bootstrap, self.rest = root / self.suffix, bootstrap, rest
        self.test = f"cq_{self.suffix}"
        self.failures = f"_streamt_test_failures.e2ecq.default.{self.test}"
        self.topic = f"e2e-{self.suffix}.orders"
        self.customers = f"e2e-{self.suffix}.customers"
        runtime: dict[str, Any] = {"kafka": {"bootstrap_servers": bootstrap}}
        if flink:
            runtime["flink"] = {
                "default": "local",
                "clusters": {"local": {"rest_url": rest, "sql_gateway_url": gateway}},
            }
        write_project(
            self.path,
            {
                "stream_project.yml": {
                    "apiVersion": "streamt.dev/v1alpha1",
                    "project": {"name": "e2ecq"},
                    "runtime": runtime,
                    "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
                    "defaults": {"topic": {"partitions": 1, "replication_factor": 1}},
                    "sources": [
                        {
                            "name": "orders",
                            "topic": self.topic,
                            "ownership": {"mode": "managed"},
                            "columns": [
                                {"name": "id", "type": "STRING"},
                                {"name": "amount", "type": "BIGINT"},
                                {"name": "status", "type": "STRING"},
                                {"name": "email", "type": "STRING", "classification": "sensitive"},
                            ],
                        },
                        {
                            "name": "customers",
                            "topic": self.customers,
                            "ownership": {"mode": "managed"},
                            "columns": [{"name": "id", "type": "STRING"}],
                        },
                    ],
                    "tests": [
                        {
                            "name": self.test,
                            "model": "orders",
                            "type": "continuous",
                            "assertions": [
                                {"not_null": {"columns": ["id", "email"]}},
                                {"range": {"column": "amount", "min": 0}},
                                {"accepted_values": {"column": "status", "values": ["new", "paid"]}},
                                {"unique_key": {"key": "id", "window": "5 seconds"}},
                                {
                                    "foreign_key": {
                                        "column": "id",
                                        "ref_model": "customers",
                                        "ref_key": "id",
                                        "window": "5 seconds",
                                    }
                                },
                                {"accepted_types": {"id": "string"}},
                            ],
                        }
                    ],
                }
            },
        )

    def jobs(self) -> list[dict[str, Any]]:
        listed = requests.get(f"{self.rest}/jobs/overview", timeout=10).json()["jobs"]
        return [j for j in listed if j["name"] == f"e2ecq/default/test_{self.test}"]

    def wait_running(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(j["state"] == "RUNNING" for j in self.jobs()):
                return
            time.sleep(0.5)
        raise AssertionError(f"test job never RUNNING: {self.jobs()}")

    def produce(self, rows: list[dict[str, Any]], topic: str | None = None) -> None:
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=self.bootstrap)
        for row in rows:
            producer.send(topic or self.topic, json.dumps(row).encode())
        producer.flush()
        producer.close()

    def cleanup(self) -> None:
        for job in self.jobs():
            if job["state"] not in ("FAILED", "CANCELED", "FINISHED"):
                requests.patch(f"{self.rest}/jobs/{job['jid']}?mode=cancel", timeout=10)
        from kafka.admin import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            mine = [t for t in admin.list_topics() if t in (self.topic, self.customers, self.failures)]
            if mine:
                admin.delete_topics(mine)
        finally:
            admin.close()


@pytest.fixture
def project(tmp_path: Path, kafka_bootstrap: str, flink_rest_url: str, flink_sql_gateway_url: str) -> Iterator[Project]:
    made = Project(tmp_path, kafka_bootstrap, flink_rest_url, flink_sql_gateway_url)
    yield made
    made.cleanup()


def result(outcome) -> dict[str, Any]:
    (test,) = outcome.data["tests"]
    return test


def test_a_continuous_test_deployed_by_apply_catches_violations_produced_after_deployment(project: Project) -> None:
    before = run_cli("test", "-p", project.path)
    assert before.exit_code == 1 and result(before)["status"] == "error"
    assert "is not deployed" in result(before)["assertions"][0]["reason"]

    applied = run_cli("apply", "-p", project.path)
    assert applied.ok, applied.envelope
    results = {(a["kind"], a["identity"], a["result"]) for a in applied.data["actions"]}
    assert {("test_job", f"test_{project.test}", "created"), ("topic", project.failures, "created")} <= results
    project.wait_running()

    quiet = run_cli("test", "-p", project.path)
    assert quiet.ok, quiet.envelope
    assert (result(quiet)["status"], result(quiet)["state"]) == ("running", "running")
    assert quiet.data["summary"]["deployed"] == 1

    secret = "s3ntinel-cq@example.com"
    project.produce([{"id": "a"}], project.customers)
    project.produce(
        [
            {"id": "a", "amount": 5, "status": "new", "email": secret},
            {"id": "a", "amount": 6, "status": "new", "email": secret},
            {"id": None, "amount": 1, "status": "paid", "email": secret},
            {"id": "b", "amount": -3, "status": "new", "email": None},
            {"id": "c", "amount": -4, "status": "weird", "email": secret},
        ]
    )
    deadline = time.monotonic() + 90
    while True:
        outcome = run_cli("test", "-p", project.path)
        failed = {a["description"]: a["failed"] for a in result(outcome)["assertions"]}
        expected = {
            "not_null(id, email)": 2,
            "range(amount)": 2,
            "accepted_values(status)": 1,
            "unique_key(id)": 1,
            "foreign_key(id)": 2,
        }
        if all(failed.get(k) == n for k, n in expected.items()) or time.monotonic() > deadline:
            break
        time.sleep(2)
    test = result(outcome)
    assert outcome.exit_code == 1 and test["status"] == "failed" and test["state"] == "running", outcome.envelope
    assert [(a["description"], a["status"], a["failed"]) for a in test["assertions"]] == [
        ("not_null(id, email)", "failed", 2),
        ("range(amount)", "failed", 2),
        ("accepted_values(status)", "failed", 1),
        ("unique_key(id)", "failed", 1),  # the window closes 5 s after the duplicate
        ("foreign_key(id)", "failed", 2),  # b and c have no customer within 5 s
        ("accepted_types(id)", "skipped", None),
    ]
    assert test["assertions"][3]["examples"][0]["value"] == "a"
    assert sorted(e["value"] for e in test["assertions"][4]["examples"]) == ["b", "c"]
    assert test["assertions"][5]["reason"] == "accepted_types is not compiled to Flink SQL yet"
    assert sorted(e["value"] for e in test["assertions"][1]["examples"]) == ["-3", "-4"]
    assert secret not in json.dumps(outcome.envelope)


def test_a_continuous_test_without_flink_is_e207(tmp_path: Path, kafka_bootstrap: str) -> None:
    plain = Project(tmp_path, kafka_bootstrap, "http://127.0.0.1:1", "http://127.0.0.1:1", flink=False)
    outcome = run_cli("test", "-p", plain.path)
    assert outcome.error_codes == ["E207_CONTINUOUS_TEST_WITHOUT_FLINK"]
