"""apply against the real broker and registry: create, idempotency, updates, blockers, ownership."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def test_create_then_unchanged_then_grow_then_alter(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and plan.data["counts"]["create"] == 4, plan.envelope
    assert "W106_LOCAL_STATE_ONLY" in plan.warning_codes
    assert plan.data["operation_status"]["status"] == "clear"

    first = streamt_cli("apply", "-p", project.path)
    assert first.ok, first.envelope
    assert first.action_results[project.topic("retry")] == "created"
    assert first.action_results[project.topic("orders") + "-value"] == "created"
    assert first.action_results[project.topic("shop")] == "unchanged"  # external: never created
    assert first.data["state"]["serial"] == 1
    assert project.describe("retry")["partitions"] == 2
    assert project.describe("retry")["config"]["retention.ms"] == "3600000"
    assert project.describe("shop") is None

    again = streamt_cli("apply", "-p", project.path)
    assert again.ok and set(again.action_results.values()) == {"unchanged"}
    assert again.data["operation_id"] is None and again.data["state"] is None
    state = json.loads((project.state_dir() / "default.json").read_text())
    assert state["serial"] == 1
    assert sorted(r["identity"] for r in state["resources"]) == sorted(
        [project.topic("orders"), project.topic("orders") + "-value", project.topic("retry"), project.topic("lookup")]
    )

    project.model("retry")["advanced"]["topic"]["partitions"] = 4
    project.model("retry")["advanced"]["topic"]["config"]["retention.ms"] = 7200000
    project.write()
    planned = streamt_cli("plan", "-p", project.path)
    (update,) = [a for a in planned.data["actions"] if a["action"] == "update"]
    assert update["evidence"]["changes"] == {
        "config.retention.ms": {"from": "3600000", "to": "7200000"},
        "partitions": {"from": 2, "to": 4},
    }
    grown = streamt_cli("apply", "-p", project.path)
    assert grown.ok and grown.action_results[project.topic("retry")] == "updated"
    live = project.describe("retry")
    assert live["partitions"] == 4 and live["config"]["retention.ms"] == "7200000"
    assert grown.data["state"]["serial"] == 2


def test_partition_reduction_is_saved_for_review_but_never_applied(kafka_project, streamt_cli, tmp_path) -> None:
    project = kafka_project()
    assert streamt_cli("apply", "-p", project.path).ok
    project.model("lookup")["advanced"]["topic"]["partitions"] = 1
    project.model("retry")["advanced"]["topic"]["partitions"] = 1  # was 2
    project.write()
    out = tmp_path / "blocked.plan.json"
    plan = streamt_cli("plan", "-p", project.path, "--out", out)
    assert plan.ok and plan.data["is_apply_blocked"] is True
    assert [b["reason"] for b in plan.data["safety_blockers"]] == ["kafka_partition_reduction"]
    assert json.loads(out.read_text())["is_apply_blocked"] is True
    for extra in ([], ["--force"], ["--dry-run"], ["--plan", str(out), "--force"]):
        refused = streamt_cli("apply", "-p", project.path, *extra)
        assert refused.error_codes == ["E417_SAFETY_BLOCKED"], (extra, refused.envelope)
        # The reference's dedicated code for this migration rides on the blocker it refuses.
        (blocker,) = refused.envelope["errors"][0]["safety_blockers"]
        assert (blocker["reason"], blocker["code"]) == ("kafka_partition_reduction", "E401_CANNOT_REDUCE_PARTITIONS")
        hint = refused.envelope["errors"][0]["suggestion"]
        assert f"{project.topic('retry')}: keep at least 2 partitions, or declare a new topic for 1" in hint
    assert project.describe("retry")["partitions"] == 2
    assert not (project.state_dir() / "default.control.json").exists()


def test_schema_compatible_change_registers_a_version_and_incompatible_is_blocked(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    assert streamt_cli("apply", "-p", project.path).ok
    source = project.files["stream_project.yml"]["sources"][0]
    source["columns"].append({"name": "note", "type": "STRING"})  # optional, default null: BACKWARD compatible
    project.write()
    subject = project.topic("orders") + "-value"
    plan = streamt_cli("plan", "-p", project.path)
    (update,) = [a for a in plan.data["actions"] if a["identity"] == subject]
    assert update["action"] == "update" and not plan.data["is_apply_blocked"]
    applied = streamt_cli("apply", "-p", project.path)
    assert applied.ok and applied.action_results[subject] == "updated"
    assert set(streamt_cli("apply", "-p", project.path).action_results.values()) == {"unchanged"}

    source["columns"][1] = {"name": "amount", "type": "STRING", "required": True}  # long -> string
    project.write()
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and [b["reason"] for b in plan.data["safety_blockers"]] == ["schema_incompatible"]
    refused = streamt_cli("apply", "-p", project.path, "--force")
    assert refused.error_codes == ["E417_SAFETY_BLOCKED"]
    assert [b["code"] for b in refused.envelope["errors"][0]["safety_blockers"]] == ["E402_SCHEMA_INCOMPATIBLE"]
    assert "make the schema change compatible with the subject's rule" in refused.envelope["errors"][0]["suggestion"]


def test_a_live_topic_without_ownership_needs_a_decision(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=project.bootstrap)
    admin.create_topics([NewTopic(project.topic("retry"), 2, 1)])
    admin.close()
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and plan.data["is_apply_blocked"]
    assert [r["identity"] for r in plan.data["ownership_requirements"]] == [project.topic("retry")]
    refused = streamt_cli("apply", "-p", project.path)
    assert refused.error_codes == ["E410_OWNERSHIP_REQUIRED"]
    assert project.describe("lookup") is None  # refused before any mutation


def test_target_and_select_apply_only_what_they_name(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    only = streamt_cli("apply", "-p", project.path, "--target", "lookup")
    assert only.ok and list(only.action_results) == [project.topic("lookup")]
    assert project.describe("retry") is None
    assert streamt_cli("apply", "-p", project.path, "--target", "nope").error_codes == ["E900_USAGE_ERROR"]
    dry = streamt_cli("apply", "-p", project.path, "--select", "retry", "--dry-run")
    assert dry.ok and dry.data["dry_run"] and dry.action_results == {project.topic("retry"): "would create"}
    assert project.describe("retry") is None


def test_no_secret_reaches_output_plan_or_state(kafka_project, streamt_cli, tmp_path, registry_sentinel) -> None:
    project = kafka_project()
    out = tmp_path / "p.json"
    texts = [streamt_cli("plan", "-p", project.path, "--out", out).stdout]
    texts.append(streamt_cli("apply", "-p", project.path).stdout)
    texts.append(streamt_cli("status", "-p", project.path).stdout)
    texts.append(streamt_cli("diff", "-p", project.path).stdout)
    texts.append(streamt_cli("state", "status", "-p", project.path).stdout)
    texts.append(out.read_text())
    texts += [p.read_text() for p in project.state_dir().rglob("*.json")]
    assert all(registry_sentinel not in text for text in texts)
