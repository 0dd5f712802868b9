"""An interrupted reviewed runner replacement, diagnosed and finished by fresh processes.

At each coordinator boundary — a lost answer after the candidate's real create, after the old
runner's real stop, after the real control clear, and a SIGKILL of the CLI right after journaling
each of them — a fresh `state runner-status` diagnoses without writing anything, `state resume`
finishes the same operation, the output and offsets are those of the uninterrupted run, incident
history is kept, and a second `resume` is read-only (no deployment, serial increment or append).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import test_kstreams_replacement as replacement
import test_kstreams_runner as runner
from test_kstreams_runner import EXPECTED, STREAMT, consume, ok, produce, runners, streamt

pytestmark = [pytest.mark.kafka, pytest.mark.docker]

engine, env, runner_image, cleanup = runner.engine, replacement.env, runner.runner_image, runner.cleanup
LOSE = "STREAMT_TEST_LOSE_ACK_AT"
KILL = "STREAMT_TEST_KILL_AT_BOUNDARY"
# Boundaries of one replacement: 1 intent, 2 old stopped, 3 candidate created, 4 running, 5 old removed,
# 6 history entry, 7 state file, 8 control cleared, 9 receipt.
FAULTS = [
    pytest.param({LOSE: "candidate_created"}, "old_stopped", "await_candidate", id="lost-after-create"),
    pytest.param({LOSE: "old_stopped"}, "intent_recorded", "create_candidate", id="lost-after-stop"),
    pytest.param({LOSE: "control_cleared"}, "committed", "write_receipt", id="lost-after-clear"),
    pytest.param({KILL: "3"}, "candidate_created", "await_candidate", id="sigkill-after-create"),
    pytest.param({KILL: "2"}, "old_stopped", "create_candidate", id="sigkill-after-stop"),
    pytest.param({KILL: "8"}, "committed", "write_receipt", id="sigkill-after-clear"),
]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every state, control, history and receipt file, byte for byte."""
    folder = root / ".streamt" / "state"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.suffix == ".json"}


def interrupted_apply(root: Path, plan_file: Path, fault: dict[str, str]) -> str:
    """Apply the reviewed plan with ``fault``; the operation UUID it reported (or journaled, when killed).

    With ``--emit-openlineage``: START carries the operation UUID; a lost answer ends the run with FAIL,
    a SIGKILL leaves START alone (nothing can be emitted after it).
    """
    lineage_env, log = replacement.lineage_log(root.parent)
    completed = subprocess.run(
        [*STREAMT, "-o", "json", "apply", "-p", str(root), "--plan", str(plan_file), *replacement.LINEAGE],
        capture_output=True,
        text=True,
        env={**os.environ, **env_of(root), **lineage_env, **fault},
        timeout=600,
    )
    if KILL in fault:
        assert completed.returncode == -9
        folder = root / ".streamt" / "state"
        control = folder / "default.control.json"
        # Killed after the control clear: the operation is known from the history entry its commit wrote.
        journal = control if control.exists() else sorted((folder / "default.history").glob("0*.json"))[-1]
        operation_id = str(json.loads(journal.read_text())["operation_id"])
        assert replacement.lineage_events(log) == [("START", operation_id)]
        return operation_id
    envelope = json.loads(completed.stdout)
    assert envelope["status"] == "error", completed.stdout
    data = envelope["data"]
    assert data["committed"] is None  # an unknown outcome is neither success nor failure
    assert any(f"--plan {plan_file} --operation-id {data['operation_id']}" in step for step in data["next_steps"])
    assert replacement.lineage_events(log) == [("START", data["operation_id"]), ("FAIL", data["operation_id"])]
    return str(data["operation_id"])


_ENVS: dict[str, dict[str, str]] = {}


def env_of(root: Path) -> dict[str, str]:
    return _ENVS[str(root)]


@pytest.mark.parametrize(("fault", "phase", "step"), FAULTS)
def test_interrupted_replacement_is_diagnosed_and_resumed(
    tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup, fault: dict[str, str], phase: str, step: str
):
    root, name, app_id = replacement.created_with_records(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup)
    _ENVS[str(root)] = env
    serial = replacement.state(root)["serial"]
    plan_file = tmp_path / "filter-change.json"
    ok(streamt("plan", "-p", root, "--out", plan_file, env=env))
    operation_id = interrupted_apply(root, plan_file, fault)
    ids = ["--plan", plan_file, "--operation-id", operation_id]

    before, containers = snapshot(root), sorted(c.id for c in runners(engine, name))
    status = ok(streamt("state", "runner-status", "-p", root, *ids, env=env))
    assert (status["status"], status["lifecycle_phase"], status["next_step"]) == ("pending", phase, step)
    assert status["resumable"] is True and status["next_action"].startswith("streamt state resume")
    assert status["committed"] is (step == "write_receipt")
    # Generic reviewed recovery never resolves a replacement: E419, no evidence file, nothing written.
    generic = streamt(
        "state", "recovery-plan", "-p", root, "--resolution", "observed", "--out", tmp_path / "recovery.json", env=env
    )
    assert replacement.errors(generic) == ["E419_STATE_RECOVERY_REQUIRED"] and not (tmp_path / "recovery.json").exists()
    if step != "write_receipt":  # still pending: the refusal names the replacement's own commands
        assert json.loads(generic.stdout)["data"]["next_steps"][1].startswith("streamt state resume --plan FILE")
    assert snapshot(root) == before and sorted(c.id for c in runners(engine, name)) == containers  # read-only

    completed = streamt("state", "resume", "-p", root, *ids, env=env)
    resumed = ok(completed)
    assert resumed["status"] == "completed" and resumed["read_only"] is False and resumed["committed"] is True
    if step != "write_receipt":  # the coordinator's steps, each started and finished on stderr
        lines = [line.split(" ", 1)[1] for line in completed.stderr.splitlines() if line[:1].isdigit()]
        steps = [" ".join(line.split(" ")[:3]) for line in lines]
        assert steps[:2] == [f"start {step} kafka_streams_job", f"done {step} kafka_streams_job"], lines
        assert steps[-2:] == ["start commit kafka_streams_job", "done commit kafka_streams_job"], lines
    (candidate,) = runners(engine, name)
    assert candidate.name == f"{app_id}-g2" and replacement.state(root)["serial"] == serial + 1
    history = sorted((root / ".streamt" / "state" / "default.history").iterdir())
    assert [p.name for p in history][-1] == f"receipt-{operation_id}.json"

    done = snapshot(root)
    again = ok(streamt("state", "resume", "-p", root, *ids, env=env))
    assert again["read_only"] is True and again["status"] == "completed"
    assert snapshot(root) == done and [c.id for c in runners(engine, name)] == [candidate.id]
    assert ok(streamt("state", "runner-status", "-p", root, *ids, env=env))["status"] == "completed"

    raw = f"{name}.orders.raw.v1"
    produce(kafka_bootstrap, raw, replacement.AFTER)
    out = [v for _, v in consume(kafka_bootstrap, f"{name}.orders.eligible.v1", 3)]
    assert out == [*EXPECTED, {"id": "o-6", "amount": 400}]
    assert replacement.wait_committed(kafka_bootstrap, app_id, raw, 6) == {0: 6}
    final = ok(streamt("plan", "-p", root, env=env))
    assert final["counts"]["noop"] == len(final["actions"])


def test_old_removed_new_absent_is_incomplete_and_blocks(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup):
    root, name, _ = replacement.created_with_records(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup)
    _ENVS[str(root)] = env
    plan_file = tmp_path / "filter-change.json"
    ok(streamt("plan", "-p", root, "--out", plan_file, env=env))
    operation_id = interrupted_apply(root, plan_file, {LOSE: "candidate_created"})
    for container in runners(engine, name):  # someone removes both runners by hand
        container.remove(force=True)
    ids = ["--plan", plan_file, "--operation-id", operation_id]
    before = snapshot(root)
    status = ok(streamt("state", "runner-status", "-p", root, *ids, env=env))
    assert (status["status"], status["resumable"]) == ("incomplete", False)
    refused = streamt("state", "resume", "-p", root, *ids, env=env)
    assert [e["code"] for e in json.loads(refused.stdout)["errors"]] == ["E419_STATE_RECOVERY_REQUIRED"]
    assert snapshot(root) == before and not runners(engine, name)  # nothing recreated, nothing cleared


def test_a_stale_or_wrong_plan_is_refused_before_any_runtime_call(
    tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup
):
    root, name, _ = replacement.created_with_records(tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup)
    plan_file = tmp_path / "filter-change.json"
    ok(streamt("plan", "-p", root, "--out", plan_file, env=env))
    (old,) = runners(engine, name)
    models = root / "models" / "orders.yml"
    models.write_text(models.read_text().replace("amount >= 300", "amount >= 301"))  # edited after review
    stale = streamt("apply", "-p", root, "--plan", plan_file, env=env)
    assert [e["code"] for e in json.loads(stale.stdout)["errors"]] == ["E409_PLAN_STALE"]
    unknown = ["--plan", plan_file, "--operation-id", "00000000-0000-4000-8000-000000000000"]
    assert json.loads(streamt("state", "resume", "-p", root, *unknown, env=env).stdout)["errors"][0]["code"] == (
        "E409_PLAN_STALE"
    )
    assert [c.id for c in runners(engine, name)] == [old.id] and old.status == "running"
