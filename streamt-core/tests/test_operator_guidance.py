"""Hints name the exact next command: E419 per marker kind, state status per marker kind, E418 per mode."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamt.errors import StreamtError
from streamt.state.local import LocalStateBackend
from streamt.state.operations import APPLY_OPERATION, RUNNER_REPLACEMENT_OPERATION

SINGLE_ENV = {
    "stream_project.yml": {
        "project": {"name": "guide"},
        "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}},
        "safety": {"require_reviewed_plan": True},
        "sources": [{"name": "orders", "topic": "orders"}],
    }
}


def _marker(root: Path, kind: str, env: str = "default") -> str:
    backend = LocalStateBackend(project_dir=root, project="guide", env=env)
    with backend.operation_lock():
        return str(backend.begin_operation(kind, [{"position": 0, "action": "create"}]).operation_id)


@pytest.mark.parametrize(
    ("kind", "env", "steps"),
    [
        (
            APPLY_OPERATION,
            "default",
            ["streamt state status", "streamt state recovery-plan --resolution OUTCOME --out recovery.json"],
        ),
        (
            APPLY_OPERATION,
            "prod",
            [
                "streamt state status -e prod",
                "streamt state recovery-plan -e prod --resolution OUTCOME --out recovery.json",
            ],
        ),
        (
            RUNNER_REPLACEMENT_OPERATION,
            "prod",
            [
                "streamt state runner-status -e prod --plan FILE --operation-id {id}",
                "streamt state resume -e prod --plan FILE --operation-id {id}",
            ],
        ),
    ],
)
def test_e419_names_the_exact_commands_of_the_markers_kind(tmp_path: Path, kind: str, env: str, steps: list) -> None:
    operation_id = _marker(tmp_path, kind, env)
    with pytest.raises(StreamtError) as caught:
        LocalStateBackend(project_dir=tmp_path, project="guide", env=env).require_clear()
    expected = [step.format(id=operation_id) for step in steps]
    assert caught.value.data["next_steps"] == expected and caught.value.data["operation_kind"] == kind
    suggestion = caught.value.diagnostics[0].suggestion
    assert suggestion is not None and " then ".join(f"`{s}`" for s in expected) in suggestion


def test_state_status_on_a_runner_marker_points_to_runner_status_and_resume(
    streamt_project, streamt_cli, streamt_cli_text
) -> None:
    root = streamt_project(SINGLE_ENV)
    operation_id = _marker(root, RUNNER_REPLACEMENT_OPERATION)
    text = streamt_cli_text("state", "status", "-p", root).stdout
    assert "blocks apply/adopt until state resume finishes it" in text and "reviewed recovery" not in text
    assert f"  next: streamt state runner-status --plan FILE --operation-id {operation_id}" in text
    assert f"  next: streamt state resume --plan FILE --operation-id {operation_id}" in text
    assert "failure code: (none)" in text and "last successful action index: (none)" in text and "None" not in text
    status = streamt_cli("state", "status", "-p", root)
    assert status.data["operation_status"]["failure_code"] is None  # JSON keeps null


def test_state_status_on_an_apply_marker_points_to_reviewed_recovery(streamt_project, streamt_cli_text) -> None:
    root = streamt_project(SINGLE_ENV)
    _marker(root, APPLY_OPERATION)
    text = streamt_cli_text("state", "status", "-p", root).stdout
    assert "blocks apply/adopt until reviewed recovery" in text
    assert "  next: streamt state recovery-plan --resolution OUTCOME --out recovery.json" in text


def test_e418_on_a_single_environment_project_never_suggests_env(streamt_project, streamt_cli) -> None:
    root = streamt_project(SINGLE_ENV)
    outcome = streamt_cli("apply", "-p", root)
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E418_REVIEWED_PLAN_REQUIRED" and "--env" not in error["suggestion"]
    assert "`streamt plan --out default.plan.json`" in error["suggestion"]
    assert "`streamt apply --plan default.plan.json`" in error["suggestion"]


def test_e418_in_a_multi_environment_project_names_the_environment(streamt_project, streamt_cli) -> None:
    files = {
        "stream_project.yml": {"project": {"name": "guide"}, "sources": [{"name": "orders", "topic": "orders"}]},
        "environments/prod.yml": {
            "environment": {"name": "prod", "protected": True},
            "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}},
        },
    }
    outcome = streamt_cli("apply", "-p", streamt_project(files), "--env", "prod", "--confirm")
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E418_REVIEWED_PLAN_REQUIRED"
    assert "`streamt plan --env prod --out prod.plan.json`" in error["suggestion"]


def test_an_interrupted_replacement_names_runner_status_and_resume_with_its_plan(tmp_path: Path) -> None:
    from streamt.apply.interrupted import interrupted_result
    from streamt.interruption import Terminated

    backend = LocalStateBackend(project_dir=tmp_path, project="guide", env="prod")
    with backend.operation_lock():
        began = backend.begin_operation(RUNNER_REPLACEMENT_OPERATION, [{"position": 0, "action": "update"}])
        result = interrupted_result(backend, began, "prod", "filter-change.json", Terminated())
    (error,) = result.errors
    operation_id = began.operation_id
    assert error.code.code == "E435_APPLY_INTERRUPTED" and error.details == {"operation_id": operation_id}
    assert result.data["committed"] is False and result.data["last_acknowledged_action"] is None
    assert result.data["next_steps"] == [
        f"streamt state runner-status -e prod --plan filter-change.json --operation-id {operation_id}",
        f"streamt state resume -e prod --plan filter-change.json --operation-id {operation_id}",
    ]
    assert "interrupted by SIGTERM" in error.message and "`streamt state resume -e prod" in str(error.suggestion)


def test_an_interruption_before_the_operation_began_changed_nothing(tmp_path: Path) -> None:
    from streamt.apply.interrupted import interrupted_result

    backend = LocalStateBackend(project_dir=tmp_path, project="guide", env="default")
    result = interrupted_result(backend, None, "default", None, KeyboardInterrupt())
    assert result.data == {"operation_id": None, "committed": False, "last_acknowledged_action": None, "next_steps": []}
    assert "by Ctrl-C before its operation began: nothing was changed" in result.errors[0].message
