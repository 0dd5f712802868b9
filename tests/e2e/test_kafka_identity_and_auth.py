"""Kafka against the real broker (issue 12): a wrong SASL password is E404 at once, and a topic deleted and
recreated outside streamt is never taken for the topic streamt planned or owns (topic IDs)."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from kafka import KafkaAdminClient
from kafka.admin import NewTopic
from streamt_kafka.admin import BOOTSTRAP_TIMEOUT_MS
from streamt_testing import write_project

WRONG_PASSWORD = "wrong-sasl-pw-sentinel-12"


def _sasl_project(path: Path, bootstrap: str, password: str) -> Path:
    prefix = f"e2e-{uuid.uuid4().hex[:10]}"
    kafka = {
        "bootstrap_servers": bootstrap,
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_username": "admin",
        "sasl_password": password,
    }
    return write_project(
        path,
        {
            "stream_project.yml": {
                "project": {"name": "e2e"},
                "runtime": {"kafka": kafka},
                "models": [{"name": "t", "materialized": "topic", "advanced": {"topic": {"name": f"{prefix}.t"}}}],
            }
        },
    )


def test_a_wrong_sasl_password_is_an_auth_failure_not_an_unreachable_broker(
    streamt_cli, kafka_sasl_bootstrap, kafka_sasl_credentials, tmp_path
) -> None:
    wrong = _sasl_project(tmp_path / "wrong", kafka_sasl_bootstrap, WRONG_PASSWORD)
    started = time.monotonic()
    refused = streamt_cli("plan", "-p", wrong)
    elapsed = time.monotonic() - started
    assert refused.error_codes == ["E404_AUTH_FAILED"], refused.envelope
    # Answered by the broker's refusal, not by waiting out the bootstrap timeout as an unreachable cluster.
    assert elapsed < BOOTSTRAP_TIMEOUT_MS / 1000, elapsed
    assert WRONG_PASSWORD not in refused.stdout + refused.stderr
    right = _sasl_project(tmp_path / "right", kafka_sasl_bootstrap, kafka_sasl_credentials["admin"])
    assert streamt_cli("plan", "-p", right).ok


def _recreate(project, short: str) -> None:
    """Delete the topic and create one of the same name and shape, as someone outside streamt might."""
    admin = KafkaAdminClient(bootstrap_servers=project.bootstrap)
    try:
        name = project.topic(short)
        admin.delete_topics([name])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                admin.create_topics([NewTopic(name, 2, 1, topic_configs={"retention.ms": "3600000"})])
                return
            except Exception:  # the deletion is still in progress: TopicAlreadyExists
                time.sleep(0.5)
        raise AssertionError(f"could not recreate {name}")
    finally:
        admin.close()


def test_a_topic_recreated_after_review_is_drift_and_never_the_owned_topic(
    kafka_project, streamt_cli, tmp_path
) -> None:
    project = kafka_project()
    assert streamt_cli("apply", "-p", project.path).ok
    reviewed = tmp_path / "reviewed.json"
    plan = streamt_cli("plan", "-p", project.path, "--out", reviewed)
    retry = next(a for a in plan.data["actions"] if a["identity"] == project.topic("retry"))
    assert retry["action"] == "noop" and retry["evidence"]["observation"]["spec"]["topic_id"]

    _recreate(project, "retry")  # same name, partitions and configs: only the topic ID differs
    stale = streamt_cli("apply", "-p", project.path, "--plan", reviewed)
    assert stale.error_codes == ["E409_PLAN_STALE"], stale.envelope

    again = streamt_cli("plan", "-p", project.path)
    assert [b["reason"] for b in again.data["safety_blockers"]] == ["kafka_topic_recreated"], again.data
    assert streamt_cli("apply", "-p", project.path).error_codes == ["E417_SAFETY_BLOCKED"]
