"""`streamt adopt` for topics and subjects created outside streamt, against the devstack."""

from __future__ import annotations

import json

import pytest
import requests

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]

SR = {"Content-Type": "application/vnd.schemaregistry.v1+json"}
BODY_SENTINEL = "body_field_sentinel_5d1"


def _create_outside(project, short: str, partitions: int = 1) -> None:
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=project.bootstrap)
    try:
        admin.create_topics([NewTopic(project.topic(short), partitions, 1)], raise_errors=False)
    finally:
        admin.close()


def _adoptable(project) -> None:
    files = project.files["stream_project.yml"]
    files["models"].append(
        {
            "name": "legacy",
            "ownership": {"mode": "adopted"},
            "advanced": {
                "topic": {"name": project.topic("legacy"), "partitions": 3, "config": {"retention.ms": 3600000}}
            },
        }
    )
    files["sources"].append(
        {
            "name": "events",
            "topic": project.topic("events"),
            "ownership": {"mode": "adopted"},
            "schema": {"format": "avro"},
            "columns": [{"name": "id", "type": "STRING"}, {"name": "note", "type": "STRING"}],
        }
    )
    project.write()


def _confirm(project, kind: str, name: str) -> list[str]:
    return ["--confirm-resource", f"streamt://e2e/default/{kind}/{name}", "--confirm-env", "default"]


def test_adopt_a_topic_then_plan_shows_its_pending_differences(kafka_project, streamt_cli, registry_sentinel) -> None:
    project = kafka_project()
    _adoptable(project)
    _create_outside(project, "legacy")
    base = ("adopt", "-p", project.path, "--kind", "topic", "--name", "legacy")
    before = streamt_cli("plan", "-p", project.path)
    assert any(r["identity"] == project.topic("legacy") for r in before.data["ownership_requirements"])
    refused = streamt_cli("apply", "-p", project.path)  # already declared adopted: the hint is the claim itself
    assert refused.error_codes == ["E410_OWNERSHIP_REQUIRED"]
    hint = refused.envelope["errors"][0]["suggestion"]
    assert (
        f"{project.topic('legacy')}: run `streamt adopt --kind topic --name legacy "
        "--confirm-resource streamt://e2e/default/topic/legacy`, then apply again." in hint
    )
    assert f"{project.topic('events')}: create it outside streamt first, or declare it managed" in hint
    assert "Declare them ownership.mode: adopted" not in hint
    adopted = streamt_cli(*base, *_confirm(project, "topic", "legacy"))
    assert adopted.ok, adopted.envelope
    assert adopted.data["adopted"] is True and adopted.data["serial"] == 1 and adopted.data["operation_id"]
    assert adopted.data["live"]["partitions"] == 1 and adopted.data["live"]["replication_factor"] == 1
    assert isinstance(adopted.data["live"]["dynamic_config"], dict)
    assert {p["action"] for p in adopted.data["pending_changes"] if "action" in p} == {"update"}
    assert registry_sentinel not in adopted.stdout and project.bootstrap not in adopted.stdout
    assert project.describe("legacy")["partitions"] == 1  # adoption never mutates the provider
    state = json.loads((project.state_dir() / "default.json").read_text())
    assert [r["ownership"] for r in state["resources"]] == ["adopted"]
    assert not (project.state_dir() / "default.control.json").exists()

    plan = streamt_cli("plan", "-p", project.path)
    legacy = next(a for a in plan.data["actions"] if a["identity"] == project.topic("legacy"))
    assert legacy["action"] == "update" and "partitions" in legacy["summary"]
    assert not any(r["identity"] == project.topic("legacy") for r in plan.data["ownership_requirements"])

    again = streamt_cli(*base)  # identical repeat: no confirmation needed, no serial advance
    assert again.ok and again.data["adopted"] is False and again.data["serial"] == 1
    assert len(list((project.state_dir() / "default.history").iterdir())) == 1


def test_adopt_a_schema_subject_never_prints_its_body(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    _adoptable(project)
    subject = f"{project.topic('events')}-value"
    live = {"type": "record", "name": "e", "fields": [{"name": "id", "type": "string"}]}
    live["fields"].append({"name": BODY_SENTINEL, "type": ["null", "string"], "default": None})
    response = requests.post(
        f"{project.registry}/subjects/{subject}/versions", data=json.dumps({"schema": json.dumps(live)}), headers=SR
    )
    assert response.status_code == 200
    try:
        out = streamt_cli(
            "adopt", "-p", project.path, "--kind", "schema", "--name", "events", *_confirm(project, "schema", "events")
        )
        assert out.ok, out.envelope
        review = out.data["live"]
        assert review["subject"] == subject and review["type"] == "AVRO" and review["version"] == 1
        assert review["schema_id"] and review["live_content_checksum"].startswith("sha256:")
        assert review["live_content_checksum"] != review["desired_content_checksum"]
        assert out.data["pending_changes"]
        # The subject has no level of its own: the registry's global one governs it, and the review says so.
        global_level = requests.get(f"{project.registry}/config").json()["compatibilityLevel"]
        assert review["compatibility"] == global_level != "NONE"
        assert BODY_SENTINEL not in out.stdout and '"fields"' not in out.stdout
    finally:
        requests.delete(f"{project.registry}/subjects/{subject}")
        requests.delete(f"{project.registry}/subjects/{subject}?permanent=true")


@pytest.mark.parametrize(
    "confirmation",
    [
        ["--confirm-resource", "streamt://e2e/default/topic/legacy"],
        ["--confirm-env", "default"],
        ["--confirm-resource", "streamt://e2e/default/topic/legacyX", "--confirm-env", "default"],
        ["--confirm-resource", "streamt://e2e/default/topic/legacy", "--confirm-env", "prod"],
        ["--confirm-resource", "streamt://e2e/default/schema/legacy", "--confirm-env", "default"],
        [],
    ],
)
def test_malformed_confirmations_touch_nothing(kafka_project, streamt_cli, confirmation) -> None:
    project = kafka_project()
    _adoptable(project)
    project.files["stream_project.yml"]["runtime"]["kafka"]["bootstrap_servers"] = "127.0.0.1:9"  # any access fails
    project.write()
    out = streamt_cli("adopt", "-p", project.path, "--kind", "topic", "--name", "legacy", *confirmation)
    assert out.error_codes == ["E414_ADOPTION_CONFIRMATION_REQUIRED"]
    if confirmation:
        assert not (project.path / ".streamt").exists()  # not even the lock file
    else:
        assert not (project.state_dir() / "default.json").exists()


def test_targets_live_absence_conflicts_and_other_kinds(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    _adoptable(project)
    unknown = streamt_cli(
        "adopt", "-p", project.path, "--kind", "topic", "--name", "nope", *_confirm(project, "topic", "nope")
    )
    assert unknown.error_codes == ["E412_ADOPTION_TARGET_INVALID"]
    managed = streamt_cli(
        "adopt", "-p", project.path, "--kind", "topic", "--name", "lookup", *_confirm(project, "topic", "lookup")
    )
    assert managed.error_codes == ["E412_ADOPTION_TARGET_INVALID"]
    absent = streamt_cli(
        "adopt", "-p", project.path, "--kind", "topic", "--name", "legacy", *_confirm(project, "topic", "legacy")
    )
    assert absent.error_codes == ["E413_ADOPTION_LIVE_NOT_FOUND"]
    connector = streamt_cli("adopt", "-p", project.path, "--kind", "connector", "--name", "x")
    assert connector.error_codes == ["E412_ADOPTION_TARGET_INVALID"]  # no such sink model
    # A managed claim on the same topic conflicts with an adoption.
    assert streamt_cli("apply", "-p", project.path, "--target", "lookup").ok
    project.model("lookup")["ownership"] = {"mode": "adopted"}
    project.write()
    conflict = streamt_cli(
        "adopt", "-p", project.path, "--kind", "topic", "--name", "lookup", *_confirm(project, "topic", "lookup")
    )
    assert conflict.error_codes == ["E415_ADOPTION_STATE_CONFLICT"]
    assert json.loads((project.state_dir() / "default.json").read_text())["serial"] == 1
