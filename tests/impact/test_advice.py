"""Advice from the code that plans: each job change's workflow comes from its planner's ``advise``
(streamt-flink's upgrade rules, streamt-kstreams' replacement rules), in every format alike."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from agree import agree
from test_compare import JOB, RAW, SINK, project, report

FILTER = {"name": "out", "materialized": "flink", "sql": "SELECT id, n FROM {{ ref('raw') }} WHERE n > 1"}
COUNT = {"name": "out", "materialized": "flink", "sql": "SELECT id, COUNT(*) AS c FROM {{ ref('raw') }} GROUP BY id"}


def flink(model: dict[str, Any], mode: str | None = None, **changes: Any) -> dict[str, bytes]:
    model = {**model, **changes}
    if mode is not None:
        model["advanced"] = {"flink": {"upgrade_mode": mode, "checkpoint_interval_ms": 10000}}
    return project(models=[RAW, model, SINK])


def advice_of(result: Any) -> dict[str, Any]:
    [change] = [c for c in result.to_json()["changes"] if c["advice"]]
    [advice] = change["advice"]
    return advice


CASES = {
    # mode -> (workflow, blocked as configured, setting to change first, apply needs --force)
    None: ("flink_savepoint_upgrade", True, "flink.upgrade_mode: savepoint", False),
    "blocked": ("flink_savepoint_upgrade", True, "flink.upgrade_mode: savepoint", False),
    "savepoint": ("flink_savepoint_upgrade", False, None, False),
    "last-state": ("flink_last_state_upgrade", False, None, False),
    "stateless": ("flink_stateless_upgrade", False, None, True),
}


@pytest.mark.parametrize("mode", list(CASES), ids=[str(m) for m in CASES])
def test_a_flink_change_under_each_upgrade_mode(mode: str | None) -> None:
    changed = FILTER["sql"].replace("n > 1", "n > 2")
    result = report(flink(FILTER, mode), flink(FILTER, mode, sql=changed))
    shown, data, md = agree(result)
    workflow, blocked, setting, force = CASES[mode]
    advice = advice_of(result)
    assert (advice["workflow"], advice["blocked"], advice["setting"]) == (workflow, blocked, setting)
    assert advice["state_compatible"] is True
    apply = "streamt apply --plan PLAN.json" + (" --force" if force else "")
    assert advice["commands"] == ["streamt plan --out PLAN.json", apply]
    assert [w["id"] for w in data["workflows"]] == [workflow]
    [sql] = [f for c in data["changes"] for f in c["fields"] if f["field"] == "sql"]
    assert sql["workflow"] == workflow
    for rendered in (shown, md):
        assert apply in rendered and (setting is None or f"first set {setting}" in rendered)
        assert ("BLOCKED: " in rendered) is blocked


def test_a_changed_group_by_key_is_state_incompatible_and_needs_stateless() -> None:
    by_n = "SELECT n, COUNT(*) AS c FROM {{ ref('raw') }} GROUP BY n"
    result = report(flink(COUNT, "savepoint"), flink(COUNT, "savepoint", sql=by_n))
    shown, _, md = agree(result)
    advice = advice_of(result)
    assert advice["state_compatible"] is False and advice["reason"] == "flink_state_incompatible"
    assert advice["setting"] == "flink.upgrade_mode: stateless" and advice["workflow"] == "flink_stateless_upgrade"
    assert "state NOT compatible" in shown and "state NOT compatible" in md


def test_an_upgrade_mode_change_alone_redeploys_nothing() -> None:
    result = report(flink(FILTER, "blocked"), flink(FILTER, "savepoint"))
    agree(result)
    assert advice_of(result)["workflow"] is None
    assert result.highest == "non-breaking" and result.workflows() == []


def runner(sql: str) -> dict[str, bytes]:
    return project(models=[RAW, {**JOB, "sql": sql}, SINK])


def test_a_kafka_streams_projection_change_says_it_is_blocked() -> None:
    result = report(runner(JOB["sql"]), runner("SELECT id FROM {{ ref('raw') }} WHERE n > 1"))
    shown, data, md = agree(result)
    advice = advice_of(result)
    assert advice["blocked"] and advice["reason"] == "kafka_streams_update" and advice["commands"] == []
    assert "projections" in advice["summary"]
    assert [w["id"] for w in data["workflows"]] == ["kafka_streams_replacement_blocked"]
    assert "BLOCKED: " in shown and "BLOCKED: " in md


def test_a_kafka_streams_predicate_change_is_the_reviewed_replacement() -> None:
    result = report(runner(JOB["sql"]), runner(JOB["sql"].replace("n > 1", "n > 7")))
    agree(result)
    advice = advice_of(result)
    assert (advice["workflow"], advice["blocked"]) == ("kafka_streams_replacement", False)
    assert advice["commands"] == ["streamt plan --out PLAN.json", "streamt apply --plan PLAN.json"]
