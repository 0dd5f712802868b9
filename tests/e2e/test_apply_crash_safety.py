"""Provider failure, lock contention and SIGKILL at every action boundary, in separate processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import pytest
from streamt.state.records import OperationControl, OwnershipState

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def test_a_broker_refusal_rolls_back_this_run_and_leaves_a_blocking_marker(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    project.model("lookup")["advanced"]["topic"]["config"] = {"retention.ms": "not-a-number"}
    project.write()
    failed = streamt_cli("apply", "-p", project.path)
    assert failed.error_codes == ["E407_DEPLOY_ERROR"]
    operation_id = failed.data["operation_id"]
    assert failed.data["committed"] is False and failed.envelope["errors"][0]["operation_id"] == operation_id
    assert failed.data["failures"] == [
        {
            "error": "InvalidConfigurationError",
            "identity": project.topic("lookup"),
            "kind": "topic",
            "outcome": "failed",
        }
    ]
    assert "not-a-number" not in failed.stdout
    # The topics created in the same batch were deleted again.
    assert sorted(failed.data["rolled_back"]) == sorted([project.topic("orders"), project.topic("retry")])
    assert project.describe("retry") is None
    control = json.loads((project.state_dir() / "default.control.json").read_text())
    assert control["status"] == "recovery_required" and control["operation_id"] == operation_id
    assert not (project.state_dir() / "default.json").exists()

    blocked = streamt_cli("apply", "-p", project.path)
    assert blocked.error_codes == ["E419_STATE_RECOVERY_REQUIRED"] and blocked.data["operation_id"] == operation_id
    status = streamt_cli("state", "status", "-p", project.path)
    assert status.ok and status.data["operation_status"]["status"] == "recovery_required"
    assert status.data["operation_status"]["operation_id"] == operation_id
    plan = streamt_cli("plan", "-p", project.path)  # planning stays possible and reports the marker
    assert plan.ok and plan.data["operation_status"]["status"] == "recovery_required"


def test_text_output_names_the_operation_id(kafka_project, streamt_process) -> None:
    project = kafka_project()
    project.model("lookup")["advanced"]["topic"]["config"] = {"retention.ms": "not-a-number"}
    project.write()
    completed = subprocess.run(
        [*streamt_process.__globals__["STREAMT"], "apply", "-p", str(project.path)], capture_output=True, text=True
    )
    control = json.loads((project.state_dir() / "default.control.json").read_text())
    assert completed.returncode == 1 and f"operation id: {control['operation_id']}" in completed.stderr


def test_a_second_apply_waits_for_the_lock_then_times_out_without_mutating(kafka_project, streamt_process) -> None:
    project = kafka_project()
    # The first apply pauses after its first durable write (the intent), lock held; the test freezes it
    # there (a kernel flock outlives SIGSTOP) until the second has given up, then lets it finish.
    slow = subprocess.Popen(
        [*streamt_process.__globals__["STREAMT"], "-o", "json", "apply", "-p", str(project.path)],
        env={**os.environ, "STREAMT_TEST_BOUNDARY_DELAY": "2", "STREAMT_TEST_DELAY_AT_BOUNDARY": "1"},
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not (project.state_dir() / "default.control.json").exists():  # the first one holds the lock
        assert time.monotonic() < deadline and slow.poll() is None
        time.sleep(0.02)
    slow.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        second = streamt_process("apply", "-p", project.path)
        waited = time.monotonic() - started
    finally:
        slow.send_signal(signal.SIGCONT)
    assert json.loads(second.stdout)["errors"][0]["code"] == "E422_STATE_LOCK_TIMEOUT"
    assert waited >= 2  # lock_timeout_seconds: 2 — it waited before giving up
    out, _ = slow.communicate(timeout=120)
    first = json.loads(out)
    assert first["status"] == "ok" and first["data"]["state"]["serial"] == 1
    history = sorted((project.state_dir() / "default.history").iterdir())
    assert len(history) == 1  # one operation, one commit: no double mutation


def _check_truth(project, address: str) -> str:
    """The state file is valid and the marker describes the live topics exactly."""
    state_path, control_path = project.state_dir() / "default.json", project.state_dir() / "default.control.json"
    state = OwnershipState.from_document(json.loads(state_path.read_text()), address) if state_path.exists() else None
    if not control_path.exists():
        assert state is not None and state.serial == 1
        for record in state.records:
            if record.kind == "topic":
                assert project.describe(record.identity.split(".", 1)[1]) is not None
        return "committed"
    control = OperationControl.from_document(json.loads(control_path.read_text()))
    assert control.status == "in_progress"
    outcomes: dict[int, str] = {}
    for progress in control.progress:
        outcomes[progress.index] = progress.outcome
    for index, intent in enumerate(control.actions):
        if intent["kind"] != "topic":
            continue
        live = project.describe(intent["identity"].split(".", 1)[1])
        if outcomes.get(index) == "done":
            assert live is not None, intent
        elif index not in outcomes:
            assert live is None, intent  # never started: must not exist
    return "in_progress"


def test_sigkill_at_every_boundary_leaves_valid_state_and_a_truthful_marker(kafka_project, streamt_process) -> None:
    seen = []
    boundary = 1
    while True:
        project = kafka_project(f"kill{boundary}")
        killed = streamt_process("apply", "-p", project.path, env={"STREAMT_TEST_KILL_AT_BOUNDARY": str(boundary)})
        seen.append(_check_truth(project, "streamt-state://local/e2e/default"))
        if killed.returncode != -9:
            assert killed.returncode == 0 and seen[-1] == "committed"
            break
        if seen[-1] == "in_progress":
            again = streamt_process("apply", "-p", project.path)
            assert json.loads(again.stdout)["errors"][0]["code"] == "E419_STATE_RECOVERY_REQUIRED"
        boundary += 1
    # begin, topics started/done, schema started/done, history, state: every one was a kill point.
    assert boundary >= 7 and "in_progress" in seen
