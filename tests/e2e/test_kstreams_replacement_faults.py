"""An interrupted reviewed runner replacement, diagnosed and finished by fresh processes.

At each coordinator boundary — a lost answer after the candidate's real create, after the old
runner's real stop, after the real control clear, and a SIGKILL of the CLI right after journaling
each of them — a fresh `state runner-status` diagnoses without writing anything, `state resume`
finishes the same operation, the output and offsets are those of the uninterrupted run, incident
history is kept, and a second `resume` is read-only (no deployment, serial increment or append).
(A stale or unknown-operation plan is refused inside test_kstreams_replacement's format-6 journey.)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import test_kstreams_replacement as replacement
import test_kstreams_runner as runner
from test_kstreams_runner import EXPECTED, STREAMT, ok, processed, produce, runners, streamt, wait_committed

pytestmark = [pytest.mark.kafka, pytest.mark.docker]

engine, env = runner.engine, replacement.env
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


Reviewed = tuple[Path, str, str, Path]
# One prepared project per test: each fault case, and the by-hand removal.
CASES = [case.id for case in FAULTS] + ["removed-by-hand"]


def case_of(item: pytest.Item) -> str:
    """The prepared project a collected test of this module uses (its fault case, or the by-hand removal)."""
    callspec = getattr(item, "callspec", None)
    return str(callspec.id) if callspec else "removed-by-hand"


@pytest.fixture(scope="module")
def reviewed(
    request, tmp_path_factory, kstreams_engine, env, kstreams_runner_image, kafka_bootstrap
) -> Iterator[dict[str, Reviewed]]:
    """Each test's own starter, created, fed, its predicate edited and reviewed (`plan --out`).

    ``{case: (root, name, application id, plan file)}``. Prepared side by side before the first test:
    a create mostly waits (the runner's JVM start, the group's first rebalance, the health interval),
    and every project is independent (its own names, topics, container, volume and state).
    """
    projects: list[str] = []

    def prepare(case: str) -> Reviewed:
        folder = tmp_path_factory.mktemp(case)
        root, name, app_id = replacement.created_with_records(
            folder, kstreams_engine, env, kstreams_runner_image, kafka_bootstrap, projects
        )
        _ENVS[str(root)] = env
        plan_file = folder / "filter-change.json"
        ok(streamt("plan", "-p", root, "--out", plan_file, env=env))
        return root, name, app_id, plan_file

    # Only the cases of the tests selected in this run (`-k lost-after-stop` prepares one project).
    selected = {case_of(item) for item in request.session.items if item.path == request.path}
    wanted = [case for case in CASES if case in selected]
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            prepared = dict(zip(wanted, pool.map(prepare, wanted), strict=True))
        yield prepared
    finally:
        runner.remove_projects(kstreams_engine, kafka_bootstrap, projects)


@pytest.mark.parametrize(("fault", "phase", "step"), FAULTS)
def test_interrupted_replacement_is_diagnosed_and_resumed(
    request, tmp_path, engine, env, reviewed, kafka_bootstrap, fault: dict[str, str], phase: str, step: str
):
    root, name, app_id, plan_file = reviewed[request.node.callspec.id]
    serial = replacement.state(root)["serial"]
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
    out = [v for _, v in processed(kafka_bootstrap, app_id, raw, 6, f"{name}.orders.eligible.v1")]
    assert out == [*EXPECTED, {"id": "o-6", "amount": 400}]
    assert wait_committed(kafka_bootstrap, app_id, raw, 6) == {0: 6}
    final = ok(streamt("plan", "-p", root, env=env))
    assert final["counts"]["noop"] == len(final["actions"])


def test_old_removed_new_absent_is_incomplete_and_blocks(engine, env, reviewed):
    root, name, _, plan_file = reviewed["removed-by-hand"]
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
