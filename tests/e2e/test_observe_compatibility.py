"""Subject compatibility against the devstack registry (Apicurio 3.3.3, ccompat v7, global BACKWARD).

A declared level is observed and set with ``PUT /config/<subject>`` before the schema is
registered; a BACKWARD-incompatible change is an ``E417`` blocker at plan time, found by the
registry's own compatibility check, and apply refuses it before any mutation.
"""

from __future__ import annotations

import pytest

requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def subject_level(project, subject: str) -> str | None:
    response = requests.get(f"{project.registry}/config/{subject}", timeout=10)
    return response.json().get("compatibilityLevel") if response.status_code == 200 else None


def versions(project, subject: str) -> list[int]:
    response = requests.get(f"{project.registry}/subjects/{subject}/versions", timeout=10)
    return response.json() if response.status_code == 200 else []


def schema_action(outcome, subject: str) -> dict:
    assert outcome.ok, outcome.envelope
    (action,) = [a for a in outcome.data["actions"] if a["kind"] == "schema" and a["identity"] == subject]
    return action


def delete_subject(project, subject: str) -> None:
    requests.delete(f"{project.registry}/subjects/{subject}", timeout=10)
    requests.delete(f"{project.registry}/subjects/{subject}?permanent=true", timeout=10)


def test_a_declared_level_is_set_before_the_first_registration_and_then_observed(kafka_project, streamt_cli) -> None:
    p = kafka_project()
    source = p.files["stream_project.yml"]["sources"][0]
    source["schema"]["compatibility"] = "full"
    p.write()
    subject = p.topic("orders") + "-value"
    try:
        plan = schema_action(streamt_cli("plan", "-p", p.path), subject)
        assert plan["action"] == "create" and "compatibility FULL" in plan["summary"]
        assert streamt_cli("apply", "-p", p.path).ok
        assert subject_level(p, subject) == "FULL" and versions(p, subject) == [1]

        again = schema_action(streamt_cli("plan", "-p", p.path), subject)
        assert again["action"] == "noop"
        assert again["evidence"]["observation"]["spec"]["compatibility"] == "FULL"

        # Only the level changes: an update that registers nothing.
        source["schema"]["compatibility"] = "FORWARD"
        p.write()
        changed = schema_action(streamt_cli("plan", "-p", p.path), subject)
        assert changed["action"] == "update" and changed["summary"] == "compatibility: FULL → FORWARD"
        assert changed["evidence"]["changes"] == {"compatibility": {"from": "FULL", "to": "FORWARD"}}
        assert streamt_cli("apply", "-p", p.path).ok
        assert subject_level(p, subject) == "FORWARD" and versions(p, subject) == [1]
        shown = streamt_cli("show", "source", "orders_raw", "-p", p.path, "--diff")
        (diffed,) = [a for a in shown.data["diff"]["artifacts"] if a["kind"] == "schema"]
        assert diffed["action"] == "noop"
    finally:
        delete_subject(p, subject)


def test_a_backward_incompatible_change_is_blocked_at_plan_and_never_registered(kafka_project, streamt_cli) -> None:
    p = kafka_project()
    subject = p.topic("orders") + "-value"
    try:
        assert streamt_cli("apply", "-p", p.path).ok
        assert versions(p, subject) == [1]
        assert subject_level(p, subject) != "BACKWARD"  # no level of its own: the global BACKWARD governs it
        columns = p.files["stream_project.yml"]["sources"][0]["columns"]
        columns[0]["type"] = "BIGINT"  # order_id STRING -> BIGINT: old records no longer readable
        p.write()
        plan = streamt_cli("plan", "-p", p.path)
        action = schema_action(plan, subject)
        assert action["action"] == "update"
        assert action["evidence"]["observation"]["spec"]["compatibility"] == "BACKWARD"
        assert action["evidence"]["observation"]["spec"]["compatible"] is False
        (blocker,) = [b for b in plan.data["safety_blockers"] if b["identity"] == subject]
        assert blocker["reason"] == "schema_incompatible" and plan.data["is_apply_blocked"] is True

        refused = streamt_cli("apply", "-p", p.path)
        assert refused.error_codes == ["E417_SAFETY_BLOCKED"]
        assert versions(p, subject) == [1]

        # Declaring NONE makes the same change acceptable; the level is set *before* the schema is
        # registered, or the registry (still BACKWARD) would refuse the registration.
        p.files["stream_project.yml"]["sources"][0]["schema"]["compatibility"] = "NONE"
        p.write()
        plan = streamt_cli("plan", "-p", p.path)
        assert plan.data["safety_blockers"] == []
        assert "compatibility: BACKWARD → NONE" in schema_action(plan, subject)["summary"]
        applied = streamt_cli("apply", "-p", p.path)
        assert applied.ok, applied.envelope
        assert subject_level(p, subject) == "NONE" and versions(p, subject) == [1, 2]
    finally:
        delete_subject(p, subject)
