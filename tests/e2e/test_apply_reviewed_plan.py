"""Reviewed plans: round trip, every field tampered, drift, and the environment policies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamt.plan.planfile import integrity_checksum

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def rewrite(path: Path, edit: Any, *, fix_checksum: bool) -> None:
    document = json.loads(path.read_text())
    edit(document)
    if fix_checksum:
        document["integrity"]["checksum"] = integrity_checksum(document)
    path.write_text(json.dumps(document, indent=2, sort_keys=True))


def test_reviewed_plan_round_trip(kafka_project, streamt_cli, tmp_path) -> None:
    project = kafka_project()
    out = tmp_path / "p.json"
    assert streamt_cli("plan", "-p", project.path, "--out", out).ok
    first = out.read_bytes()
    assert streamt_cli("plan", "-p", project.path, "--out", out).ok
    assert out.read_bytes() == first  # deterministic bytes
    document = json.loads(first)
    assert document["format_version"] == 5 and document["offline"] is False
    assert document["state"] == {
        "address": "streamt-state://local/e2e/default",
        "backend": "local",
        "checksum": None,
        "serial": 0,
        "store_id": None,
    }
    applied = streamt_cli("apply", "-p", project.path, "--plan", out)
    assert applied.ok and applied.data["plan_file"] == str(out)
    assert project.describe("retry") is not None
    # The state moved on: the same file can never authorize a second apply.
    assert streamt_cli("apply", "-p", project.path, "--plan", out).error_codes == ["E409_PLAN_STALE"]


# Each field and the edit made to it; integrity catches an unfixed edit, verification a fixed one.
EDITS = {
    "actions": lambda d: d["actions"][0]["evidence"]["observation"].update(status="present"),
    "actions.order": lambda d: d["actions"].reverse(),
    "counts": lambda d: d["counts"].update(create=0),
    "environment": lambda d: d.update(environment="prod"),
    "environment_fingerprint": lambda d: d.update(environment_fingerprint="sha256:" + "0" * 64),
    "format": lambda d: d.update(format="other"),
    "format_version": lambda d: d.update(format_version=4),
    "is_apply_blocked": lambda d: d.update(is_apply_blocked=True),
    "live_evidence": lambda d: d.update(live_evidence={"observed_kinds": []}),
    "manifest_checksum": lambda d: d.update(manifest_checksum="sha256:" + "1" * 64),
    "offline": lambda d: d.update(offline=True),
    "ownership_requirements": lambda d: d["ownership_requirements"].append({"kind": "topic"}),
    "project": lambda d: d.update(project="other"),
    "safety_blockers": lambda d: d["safety_blockers"].append({"reason": "x"}),
    "state": lambda d: d["state"].update(serial=3),
    "state.checksum": lambda d: d["state"].update(checksum="sha256:" + "2" * 64),
    "state.store_id": lambda d: d["state"].update(store_id="00000000-0000-4000-8000-000000000000"),
    "state.address": lambda d: d["state"].update(address="streamt-state://local/e2e/prod"),
    "integrity": lambda d: d["integrity"].update(algorithm="md5"),
}


def test_every_tampered_field_is_refused_before_any_change(kafka_project, streamt_cli, tmp_path) -> None:
    project = kafka_project()
    original = tmp_path / "p.json"
    assert streamt_cli("plan", "-p", project.path, "--out", original).ok
    for field, edit in EDITS.items():
        for fix in (False, True):
            path = tmp_path / f"{field}.{fix}.json"
            path.write_bytes(original.read_bytes())
            rewrite(path, edit, fix_checksum=fix)
            outcome = streamt_cli("apply", "-p", project.path, "--plan", path)
            expected = {"E408_PLAN_FILE_INVALID"} if not fix or field.startswith(("format", "integrity")) else None
            assert outcome.exit_code == 1, (field, fix)
            codes = set(outcome.error_codes)
            if expected:
                assert codes == expected, (field, fix, outcome.envelope)
            else:
                assert codes <= {"E408_PLAN_FILE_INVALID", "E409_PLAN_STALE"} and codes, (field, fix)
    assert project.describe("retry") is None and project.describe("lookup") is None
    assert not (project.state_dir() / "default.json").exists()


def test_offline_and_drifted_plans_are_refused(kafka_project, streamt_cli, tmp_path) -> None:
    project = kafka_project()
    offline = tmp_path / "offline.json"
    assert streamt_cli("plan", "--offline", "-p", project.path, "--out", offline).ok
    refused = streamt_cli("apply", "-p", project.path, "--plan", offline)
    assert refused.error_codes == ["E408_PLAN_FILE_INVALID"] and "offline" in refused.envelope["errors"][0]["message"]

    online = tmp_path / "online.json"
    assert streamt_cli("plan", "-p", project.path, "--out", online).ok
    project.model("retry")["advanced"]["topic"]["partitions"] = 3  # the project changed after review
    project.write()
    assert streamt_cli("apply", "-p", project.path, "--plan", online).error_codes == ["E409_PLAN_STALE"]
    project.model("retry")["advanced"]["topic"]["partitions"] = 2
    project.write()

    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic

    admin = KafkaAdminClient(bootstrap_servers=project.bootstrap)
    admin.create_topics([NewTopic(project.topic("lookup"), 1, 1)])  # live drift after review
    admin.close()
    stale = streamt_cli("apply", "-p", project.path, "--plan", online)
    assert stale.error_codes == ["E409_PLAN_STALE"] and "actions" in stale.envelope["errors"][0]["message"]
    assert project.describe("retry") is None
    usage = streamt_cli("apply", "-p", project.path, "--plan", online, "--target", "retry")
    assert usage.error_codes == ["E900_USAGE_ERROR"]


def _environments(project, **prod: Any) -> None:
    runtime = project.files["stream_project.yml"].pop("runtime")
    project.files["environments/prod.yml"] = {"environment": {"name": "prod", "protected": True}, "runtime": runtime}
    project.files["environments/prod.yml"].update(prod)
    project.files["environments/staging.yml"] = {"runtime": runtime, "safety": {"require_reviewed_plan": True}}
    project.files["environments/dev.yml"] = {"runtime": runtime, "safety": {"require_remote_state": True}}
    project.write()


def test_protected_and_shared_environments_need_a_reviewed_plan_and_confirmation(
    kafka_project, streamt_cli, tmp_path
) -> None:
    project = kafka_project()
    _environments(project)
    path = project.path
    for extra in ([], ["--confirm"], ["--force"], ["--dry-run"], ["--confirm-env", "prod"]):
        assert streamt_cli("apply", "-p", path, "--env", "prod", *extra).error_codes == [
            "E418_REVIEWED_PLAN_REQUIRED"
        ], extra
    assert streamt_cli("apply", "-p", path, "--env", "staging").error_codes == ["E418_REVIEWED_PLAN_REQUIRED"]
    out = tmp_path / "prod.plan.json"
    assert streamt_cli("plan", "-p", path, "--env", "prod", "--out", out).ok
    # A wrong --confirm-env fails before the plan file, state or broker are touched.
    wrong = streamt_cli(
        "apply", "-p", path, "--env", "prod", "--plan", tmp_path / "missing.json", "--confirm-env", "dev"
    )
    assert wrong.error_codes == ["E900_USAGE_ERROR"]
    unconfirmed = streamt_cli("apply", "-p", path, "--env", "prod", "--plan", out)
    assert unconfirmed.error_codes == ["E900_USAGE_ERROR"] and "--confirm-env prod" in str(unconfirmed.envelope)
    assert not (project.state_dir() / "prod.json").exists()
    assert streamt_cli("apply", "-p", path, "--env", "prod", "--plan", out, "--confirm-env", "prod").ok
    assert project.describe("retry") is not None


def test_remote_state_policy_rejects_local_state_even_with_a_plan(kafka_project, streamt_cli, tmp_path) -> None:
    project = kafka_project()
    _environments(project)
    out = tmp_path / "dev.plan.json"
    assert streamt_cli("plan", "-p", project.path, "--env", "dev", "--out", out).ok  # plan is not blocked
    for extra in ([], ["--plan", str(out)], ["--plan", str(out), "--force"]):
        refused = streamt_cli("apply", "-p", project.path, "--env", "dev", *extra)
        assert refused.error_codes == ["E421_REMOTE_STATE_REQUIRED"], extra
    assert not (project.state_dir() / "dev.lock").exists()
