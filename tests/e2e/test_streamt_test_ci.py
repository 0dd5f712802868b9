"""`streamt test` in the reference's CI examples, run as written (separate processes, `set -e` semantics).

Single environment: plan, apply --confirm, test. Multi-environment: plan --out / apply --plan / test for
staging, then the protected prod with --confirm-env. Both environments point at the devstack broker with
their own topic prefix; records are produced between apply and test so the sample tests read real data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from streamt_testing import write_project

pytestmark = [pytest.mark.kafka]

STREAMT = str(Path(sys.executable).with_name("streamt"))
TESTS = [
    {"name": "orders_schema", "model": "orders_clean", "type": "schema",
     "assertions": [{"not_null": {"columns": ["order_id"]}}, {"accepted_types": {"amount": "long"}}]},
    {"name": "orders_quality", "model": "orders_clean", "type": "sample", "sample_size": 50,
     "assertions": [{"not_null": {"columns": ["order_id"]}}, {"range": {"column": "amount", "min": 0}},
                    {"expression": {"sql": "amount < 1000000"}}]},
]  # fmt: skip
MODEL = {
    "name": "orders_clean",
    "materialized": "topic",
    "columns": [{"name": "order_id", "type": "STRING", "required": True}, {"name": "amount", "type": "BIGINT"}],
}


def sh(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [STREAMT, *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=180
    )
    assert done.returncode == 0, f"streamt {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def produce(bootstrap: str, topic: str, count: int) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(count):
        producer.send(topic, json.dumps({"order_id": f"o{i}", "amount": i}).encode())
    producer.flush()
    producer.close()


def drop(bootstrap: str, prefix: str) -> None:
    from kafka.admin import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    names = [t for t in admin.list_topics() if t.startswith(prefix)]
    if names:
        admin.delete_topics(names)
    admin.close()


def test_the_single_environment_ci_pipeline(tmp_path: Path, kafka_bootstrap: str) -> None:
    prefix = f"ci-{uuid.uuid4().hex[:8]}"
    model = {**MODEL, "advanced": {"topic": {"name": f"{prefix}.orders.clean"}}}
    files: dict[str, Any] = {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "ci"},
            "runtime": {"kafka": {"bootstrap_servers": kafka_bootstrap}},
            "defaults": {"topic": {"partitions": 2, "replication_factor": 1}},
            "models": [model],
            "tests": TESTS,
        }
    }
    project = write_project(tmp_path / "single", files)
    try:
        sh(project, "plan")
        sh(project, "apply", "--confirm")
        produce(kafka_bootstrap, f"{prefix}.orders.clean", 30)
        done = sh(project, "test")
        assert done.stdout.splitlines()[-1] == "Results: 2 passed, 0 failed, 0 deployed"
        assert "  ✓ orders_quality (30 messages)" in done.stdout
    finally:
        drop(kafka_bootstrap, prefix)


def test_the_multi_environment_ci_pipeline(tmp_path: Path, kafka_bootstrap: str) -> None:
    prefix = f"ci-{uuid.uuid4().hex[:8]}"
    model = {**MODEL, "advanced": {"topic": {"name": "${TOPIC_PREFIX}.orders.clean"}}}
    files: dict[str, Any] = {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "ci-multi"},
            "defaults": {"topic": {"partitions": 1, "replication_factor": 1}},
            "models": [model],
            "tests": TESTS,
        },
        "environments/staging.yml": {
            "environment": {"name": "staging"},
            "runtime": {"kafka": {"bootstrap_servers": "${CI_KAFKA}"}},
        },
        "environments/prod.yml": {
            "environment": {"name": "prod", "protected": True},
            "runtime": {"kafka": {"bootstrap_servers": "${CI_KAFKA}"}},
        },
    }
    project = write_project(tmp_path / "multi", files)
    try:
        for env, extra in (("staging", []), ("prod", ["--confirm-env", "prod"])):
            variables = {"CI_KAFKA": kafka_bootstrap, "TOPIC_PREFIX": f"{prefix}-{env}"}
            sh(project, "plan", "--env", env, "--out", f"{env}.plan.json", env=variables)
            sh(project, "apply", "--env", env, "--plan", f"{env}.plan.json", *extra, env=variables)
            produce(kafka_bootstrap, f"{prefix}-{env}.orders.clean", 10)
            done = sh(project, "test", "--env", env, env=variables)
            assert done.stdout.splitlines()[-1] == "Results: 2 passed, 0 failed, 0 deployed", done.stdout
            report = json.loads(sh(project, "-o", "json", "test", "--env", env, env=variables).stdout)
            assert report["data"]["environment"] == env
            assert {t["name"]: t["messages"] for t in report["data"]["tests"]} == {
                "orders_schema": None,
                "orders_quality": 10,
            }
    finally:
        drop(kafka_bootstrap, prefix)
