"""status: missing, OK, drift, external scope, filter, health and message counts on the real broker."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def by_name(outcome, key="topics"):
    return {e["name"]: e for e in outcome.data[key]}


def test_status_before_and_after_apply_and_drift(kafka_project, streamt_cli, streamt_process) -> None:
    project = kafka_project()
    before = streamt_cli("status", "-p", project.path, "--health")
    assert before.exit_code == 1 and by_name(before)[project.topic("retry")]["status"] == "MISSING"
    assert before.data["observation_scope"] == "managed"
    assert before.data["external_resources"][0]["name"] == project.topic("shop")
    assert before.data["external_resources"][0]["exists"] is None
    assert not (project.path / ".streamt").exists()  # status needs no state

    assert streamt_cli("apply", "-p", project.path).ok
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=project.bootstrap)
    for i in range(5):
        producer.send(project.topic("retry"), f"m{i}".encode())
    producer.flush()
    producer.close()
    after = streamt_cli("status", "-p", project.path, "--health", "--lag")
    assert after.ok, after.envelope
    retry = by_name(after)[project.topic("retry")]
    assert (retry["status"], retry["partitions"], retry["message_count"]) == ("OK", 2, 5)
    assert by_name(after, "schemas")[project.topic("orders") + "-value"]["status"] == "OK"

    project.model("retry")["advanced"]["topic"]["config"]["retention.ms"] = 60000
    project.write()
    drift = streamt_cli("status", "-p", project.path, "--health", "--filter", "*retry*")
    assert drift.exit_code == 1 and list(by_name(drift)) == [project.topic("retry")]
    assert by_name(drift)[project.topic("retry")]["status"] == "DRIFT"

    external = streamt_cli("status", "-p", project.path, "--include-external", "--filter", "*shop")
    assert external.data["observation_scope"] == "managed_and_external"
    assert by_name(external)[project.topic("shop")]["status"] == "MISSING"

    raw = streamt_process("status", "-p", project.path, "--format", "json", "--filter", "*lookup")
    document = json.loads(raw.stdout)  # -o json envelope wraps the same document
    assert document["data"]["topics"][0]["status"] == "OK"


def test_state_status_reports_absent_without_creating_files(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    status = streamt_cli("state", "status", "-p", project.path)
    assert status.ok and status.data["state_status"] == "absent" and status.data["serial"] == 0
    assert not (project.path / ".streamt").exists()
    assert streamt_cli("apply", "-p", project.path).ok
    status = streamt_cli("state", "status", "-p", project.path)
    assert (status.data["state_status"], status.data["serial"]) == ("present", 1)
    assert status.data["operation_status"]["status"] == "clear"


def test_diff_shows_local_against_deployed(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    assert streamt_cli("apply", "-p", project.path).ok
    project.model("lookup")["advanced"]["topic"]["partitions"] = 3
    project.write()
    diff = streamt_cli("diff", "-p", project.path)
    assert diff.ok
    actions = {a["identity"]: a["action"] for a in diff.data["actions"]}
    assert actions[project.topic("lookup")] == "update" and actions[project.topic("retry")] == "noop"
