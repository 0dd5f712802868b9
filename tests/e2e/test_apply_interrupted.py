"""SIGTERM and Ctrl-C during a real apply: the operation id, the commit outcome and the next commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from typing import Any

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]

NEXT = ["streamt state status", "streamt state recovery-plan --resolution OUTCOME --out recovery.json"]


def _interrupt_after_first_ack(
    streamt: list[str], project: Any, signum: int, *output: str
) -> tuple[int, str, str, dict]:
    """An apply whose every durable boundary sleeps, signalled once the provider acknowledged an action."""
    process = subprocess.Popen(
        [*streamt, *output, "apply", "-p", str(project.path)],
        env={**os.environ, "STREAMT_TEST_BOUNDARY_DELAY": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marker_path = project.state_dir() / "default.control.json"
    deadline = time.monotonic() + 60
    marker: dict = {}
    while not any(p["outcome"] == "done" for p in marker.get("progress", [])):
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.05)
        try:
            marker = json.loads(marker_path.read_text())
        except (FileNotFoundError, ValueError):  # not written yet, or being replaced
            marker = {}
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    return process.returncode, stdout, stderr, marker


def _acknowledged(marker: dict) -> dict:
    done = [p["index"] for p in marker["progress"] if p["outcome"] == "done"]
    action = next(a for a in marker["actions"] if a["position"] == done[-1])
    return {key: action[key] for key in ("position", "action", "kind", "identity")}


def test_sigterm_during_apply_names_the_operation_and_the_next_commands(kafka_project, streamt_process) -> None:
    project = kafka_project()
    streamt = streamt_process.__globals__["STREAMT"]
    returncode, stdout, _, marker = _interrupt_after_first_ack(streamt, project, signal.SIGTERM, "-o", "json")
    assert returncode == -signal.SIGTERM  # rendered first, then ended the way SIGTERM ends a process
    envelope = json.loads(stdout)
    assert [e["code"] for e in envelope["errors"]] == ["E435_APPLY_INTERRUPTED"]
    kept = json.loads((project.state_dir() / "default.control.json").read_text())
    assert kept["status"] == "in_progress" and kept["operation_id"] == marker["operation_id"]
    assert envelope["data"] == {
        "operation_id": marker["operation_id"],
        "operation_kind": "apply",
        "committed": False,
        "last_acknowledged_action": _acknowledged(kept),
        "next_steps": NEXT,
    }
    assert envelope["errors"][0]["operation_id"] == marker["operation_id"]

    blocked = json.loads(streamt_process("apply", "-p", project.path).stdout)
    assert blocked["errors"][0]["code"] == "E419_STATE_RECOVERY_REQUIRED"
    assert blocked["data"]["next_steps"] == NEXT and blocked["data"]["operation_id"] == marker["operation_id"]
    assert (
        "run `streamt state status` then `streamt state recovery-plan --resolution OUTCOME"
        in (blocked["errors"][0]["suggestion"])
    )


def test_ctrl_c_during_apply_prints_the_operation_and_the_next_commands(kafka_project, streamt_process) -> None:
    project = kafka_project()
    streamt = streamt_process.__globals__["STREAMT"]
    returncode, stdout, stderr, marker = _interrupt_after_first_ack(streamt, project, signal.SIGINT)
    assert returncode == 1 and stdout == ""
    acknowledged = _acknowledged(json.loads((project.state_dir() / "default.control.json").read_text()))
    operation_id = marker["operation_id"]
    headline = f"error E435_APPLY_INTERRUPTED: Apply was interrupted by Ctrl-C during operation {operation_id}"
    assert headline in stderr
    assert "(committed: false; last acknowledged action: " in stderr
    assert f"{acknowledged['action']} of {acknowledged['kind']} '{acknowledged['identity']}')" in stderr
    assert f"  operation id: {marker['operation_id']}" in stderr
    assert "Run `streamt state status` then `streamt state recovery-plan --resolution OUTCOME --out" in stderr
    assert "Traceback" not in stderr
