"""``--detailed-exitcode``: 0 when nothing would change, 2 when changes or blockers are present, 1 on error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamt.plan import Action, Plan, SafetyBlocker
from streamt.result import CHANGES_PRESENT, Result

EXTERNAL_ONLY = {
    "stream_project.yml": {
        "project": {"name": "p"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "shop", "topic": "shop.events"}],
    }
}
MANAGED = {
    "stream_project.yml": {
        "project": {"name": "p"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "shop", "topic": "shop.events"}],
        "models": [{"name": "lookup", "advanced": {"topic": {"name": "lookup.v1", "partitions": 1}}}],
    }
}


def _plan(*actions: str, blocked: bool = False) -> Plan:
    made = tuple(
        Action(action, "topic", f"t{i}", f"t{i}", "managed", "kafka", "c", "", {}) for i, action in enumerate(actions)
    )
    blockers = (SafetyBlocker("kafka_partition_reduction", "topic", "t0", "no"),) if blocked else ()
    return Plan("p", "default", False, "m", "f", made, blockers)


def test_a_plan_has_changes_when_it_mutates_or_is_blocked() -> None:
    assert not _plan().has_changes
    assert not _plan("noop", "noop").has_changes
    for action in ("create", "update", "delete", "adopt"):
        assert _plan("noop", action).has_changes, action
    assert _plan("noop", blocked=True).has_changes


def test_changes_present_is_a_successful_exit() -> None:
    result = Result("plan", force_exit=CHANGES_PRESENT)
    assert (result.exit_code, result.ok, result.envelope()["status"]) == (2, True, "ok")
    assert Result("impact", force_exit=1).envelope()["status"] == "error"


@pytest.mark.parametrize(("files", "code"), [(EXTERNAL_ONLY, 0), (MANAGED, 2)])
def test_offline_plan_exit_codes(streamt_project: Callable[..., Path], streamt_cli, files, code) -> None:
    path = streamt_project(files)
    detailed = streamt_cli("plan", "-p", path, "--offline", "--detailed-exitcode")
    assert detailed.exit_code == code and detailed.envelope["status"] == "ok", detailed.envelope
    plain = streamt_cli("plan", "-p", path, "--offline")
    assert plain.exit_code == 0 and plain.stdout == detailed.stdout  # the flag changes the exit code only


def test_an_error_still_exits_1(streamt_project: Callable[..., Path], streamt_cli) -> None:
    path = streamt_project({"stream_project.yml": {"project": {"name": "p"}, "models": [{"name": "x", "sql": 3}]}})
    for command in ("plan", "diff"):
        args = ["--offline"] if command == "plan" else []
        failed = streamt_cli(command, "-p", path, *args, "--detailed-exitcode")
        assert failed.exit_code == 1 and failed.envelope["status"] == "error", failed.envelope
