"""Ordinary apply authority through the PostgreSQL v2 writer, against the real broker."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

# Same name as the postgres tests' conftest sets for the writer DSN.
WRITER_ENV = "STREAMT_TEST_PG_WRITER_DSN"

pytestmark = [pytest.mark.postgres, pytest.mark.kafka]


def _declare_topic(project: Path, bootstrap: str, topic: str, partitions: int) -> None:
    path = project / "stream_project.yml"
    document = yaml.safe_load(path.read_text())
    document["runtime"]["kafka"]["bootstrap_servers"] = bootstrap
    document["models"] = [
        {
            "name": "orders",
            "description": "orders as streamt owns them",
            "advanced": {"topic": {"name": topic, "partitions": partitions, "replication_factor": 1}},
        }
    ]
    path.write_text(yaml.safe_dump(document))


def _live_partitions(bootstrap: str, topic: str) -> int | None:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        (entry,) = admin.describe_topics([topic])
        return None if entry.get("error_code", 0) else len(entry["partitions"])
    finally:
        admin.close()


def test_apply_commits_ownership_through_the_v2_writer(
    v2_project: Path, streamt_cli: Any, kafka_bootstrap: str
) -> None:
    topic = f"streamt-test.pg.{uuid.uuid4().hex[:8]}"
    _declare_topic(v2_project, kafka_bootstrap, topic, partitions=2)

    planned = streamt_cli("plan", "-p", v2_project)
    assert planned.ok, planned.envelope
    assert planned.data["counts"]["create"] == 1
    assert "W106_LOCAL_STATE_ONLY" not in planned.warning_codes

    first = streamt_cli("apply", "-p", v2_project)
    assert first.ok, first.envelope
    assert first.action_results[topic] == "created"
    assert _live_partitions(kafka_bootstrap, topic) == 2
    assert not (v2_project / ".streamt").exists(), "postgres state must never fall back to local files"

    status = streamt_cli("state", "status", "-p", v2_project)
    assert status.ok, status.envelope
    assert status.data["backend"] == "postgres"
    assert status.data["serial"] == 1

    again = streamt_cli("apply", "-p", v2_project)
    assert again.ok and set(again.action_results.values()) == {"unchanged"}
    assert streamt_cli("state", "status", "-p", v2_project).data["serial"] == 1

    _declare_topic(v2_project, kafka_bootstrap, topic, partitions=3)
    grown = streamt_cli("apply", "-p", v2_project)
    assert grown.ok and grown.action_results[topic] == "updated"
    assert _live_partitions(kafka_bootstrap, topic) == 3
    assert streamt_cli("state", "status", "-p", v2_project).data["serial"] == 2


def test_apply_without_the_writer_credential_never_falls_back(
    v2_project: Path, streamt_cli: Any, kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    topic = f"streamt-test.pg.{uuid.uuid4().hex[:8]}"
    _declare_topic(v2_project, kafka_bootstrap, topic, partitions=1)
    monkeypatch.delenv(WRITER_ENV)
    outcome = streamt_cli("apply", "-p", v2_project)
    assert not outcome.ok
    assert outcome.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"]
    assert _live_partitions(kafka_bootstrap, topic) is None
    assert not (v2_project / ".streamt").exists()
