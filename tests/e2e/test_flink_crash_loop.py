"""Flink day three against the devstack Flink cluster, SQL Gateway and Kafka: poison records.

One journey on one stateful job (a running COUNT per key into an ``upsert-kafka`` sink, checkpoints
every second): a record with a null key makes Flink's NOT NULL enforcer fail the job on every
attempt; ``status --health`` exits 1 with ``CRASH_LOOPING`` and the cause; ``plan`` on the fixed SQL
proposes a last-state upgrade (never a savepoint, which a restarting job cannot take); the
reviewed apply cancels the job, resubmits the fixed SQL from its retained checkpoint, and the count
continues from its pre-incident value on the output topic; a second plan is a no-op. That apply is
killed between the cancel and the resubmit: the marker keeps the checkpoint path, reviewed
recovery classifies the stopped job ``prior``, and the next plan resubmits from the checkpoint the
cancel retained. Then a record
that is not JSON: the same loop, fixed by ``format.ignore_parse_errors`` through another last-state
upgrade, after which a bad record is skipped without a restart. ``validate`` warns W124 before the
incident and not after the fix. A second, small test bounds the restarts (``fixed-delay``): the
job ends FAILED instead of looping, and the FAILED runbook resubmits the fixed SQL from its
checkpoint. The jobs and topics are removed afterwards (``CountProject.cleanup``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import requests

sys.path.insert(0, str(Path(__file__).parent))
from test_flink_lifecycle import CountProject, _recover  # day two's project (topics, job, cleanup), recovery

pytestmark = [pytest.mark.kafka, pytest.mark.flink]

FIXED = "SELECT id, COUNT(*) AS n FROM {{ source(\"raw\") }} WHERE name <> 'x' AND id IS NOT NULL GROUP BY id"
CHECKPOINTS = {"checkpoint_interval_ms": 1000, "upgrade_mode": "savepoint"}


def _checkpointed_after(project: CountProject, job_id: str, since_ms: int, timeout: float = 60) -> str:
    """The external path of a checkpoint completed after ``since_ms`` (what a last-state upgrade restores)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = requests.get(f"{project.endpoints['rest']}/jobs/{job_id}/checkpoints", timeout=10).json()
        completed = (body.get("latest") or {}).get("completed") or {}
        if int(completed.get("trigger_timestamp") or 0) > since_ms:
            return str(completed["external_path"])
        time.sleep(0.5)
    raise AssertionError(f"no checkpoint of {job_id} completed after {since_ms}")


def _produce_raw(project: CountProject, *values: bytes) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=project.endpoints["kafka"])
    for value in values:
        producer.send(project.raw, value)
    producer.flush()
    producer.close()


def _crash_looping(streamt_cli: Any, project: CountProject, timeout: float = 90) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        status = streamt_cli("status", "-p", project.path, "--health")
        jobs = status.data.get("flink_jobs") or [] if status.data else []
        # The exception history lists the failure a moment after the job turns RESTARTING.
        if any(j.get("status") == "CRASH_LOOPING" and j.get("cause") for j in jobs) or time.monotonic() > deadline:
            return status
        time.sleep(1)


@pytest.fixture
def project(tmp_path: Path, kafka_bootstrap: str, flink_rest_url: str, flink_sql_gateway_url: str):
    made = CountProject(tmp_path, {"kafka": kafka_bootstrap, "rest": flink_rest_url, "gateway": flink_sql_gateway_url})
    yield made
    made.cleanup()


def test_poison_records_crash_loop_and_last_state_upgrades_keep_the_count(
    project, streamt_cli, streamt_process, tmp_path
):
    from streamt.cli import run

    project.write(flink_extra=CHECKPOINTS)
    warned = streamt_cli("validate", "-p", project.path)
    assert [w["code"] for w in warned.envelope["warnings"] if w["code"].startswith("W124")] == [
        "W124_UPSERT_KEY_NULLABLE"
    ], warned.envelope
    project.wait_slot()
    applied = streamt_cli("apply", "-p", project.path)
    assert applied.ok, applied.envelope
    old_job = project.wait_state("RUNNING")
    project.produce("k1", "k1", "k1")
    assert project.counts("k1", until=3)[-1] == 3
    _checkpointed_after(project, old_job, int(time.time() * 1000))  # the count of 3 is in a checkpoint

    # The poison record: a null GROUP BY key reaches the upsert sink's PRIMARY KEY (id).
    _produce_raw(project, json.dumps({"id": None, "name": "poison-value-7Q"}).encode())
    status = _crash_looping(streamt_cli, project)
    assert status.exit_code == 1, status.envelope
    (entry,) = status.data["flink_jobs"]
    assert entry["status"] == "CRASH_LOOPING" and entry["healthy"] is False, entry
    assert entry["cause"]["exception"].endswith("EnforcerException")
    assert entry["cause"]["message"].startswith("Column 'id' is NOT NULL")
    assert "poison-value-7Q" not in json.dumps(status.envelope)
    out = tmp_path / "status.out"
    with out.open("w") as stdout, (tmp_path / "status.err").open("w") as stderr:
        assert run(["status", "-p", str(project.path), "--health"], stdout, stderr) == 1
    assert f"CRASH_LOOPING {project.model} (EnforcerException: Column 'id' is NOT NULL" in out.read_text()
    observed = streamt_cli("observe", "-p", project.path)
    (job,) = [r for m in observed.data["models"] for r in m["resources"] if r["kind"] == "flink_job"]
    assert job["state"] == "CRASH_LOOPING" and job["reason"].startswith("EnforcerException"), job

    # The fix (filter the null keys) is planned as a last-state upgrade, never a savepoint.
    project.write(flink_extra=CHECKPOINTS, sql=FIXED)
    fixed = streamt_cli("validate", "-p", project.path)
    assert not [w for w in fixed.envelope["warnings"] if w["code"].startswith("W124")], fixed.envelope
    planned = streamt_cli("plan", "-p", project.path, "--out", tmp_path / "fix.json")
    assert planned.ok and not planned.data["is_apply_blocked"], planned.envelope
    action = _flink(planned)
    assert action["evidence"]["upgrade"]["mode"] == "last-state" and action["evidence"]["upgrade"]["job_id"] == old_job
    assert "crash-looping" in action["summary"] and "savepoint upgrade" not in action["summary"]
    # Killed after the cancel, before the resubmit (boundaries: intent, started, journal(replacing),
    # journal(checkpoint), journal(cancelled) -> killed there): the marker keeps the checkpoint path.
    killed = streamt_process(
        "apply", "-p", project.path, "--plan", tmp_path / "fix.json", env={"STREAMT_TEST_KILL_AT_BOUNDARY": "5"}
    )
    assert killed.returncode == -9, killed.stderr
    control = project.control()
    assert control["status"] == "in_progress"
    path = control["progress"][-1]["evidence"]["checkpoint"]
    assert "/chk-" in path and control["progress"][-1]["evidence"]["cancelled"] == old_job
    project.wait_state("CANCELED", job_id=old_job)
    assert project.live() == []
    document = _recover(streamt_cli, project, "observed", tmp_path / "obs.json")
    assert [t["classification"] for t in document["targets"]] == ["prior"]
    assert path in json.dumps(document["preimage"]["progress"])
    planned = streamt_cli("plan", "-p", project.path, "--out", tmp_path / "resume.json")
    assert _flink(planned)["evidence"]["upgrade"]["restore_from"] == path, planned.envelope  # retained on cancel
    applied = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "resume.json")
    assert applied.ok and applied.action_results[project.model] == "updated", applied.envelope
    new_job = project.wait_state("RUNNING")
    assert new_job != old_job and [j["jid"] for j in project.live()] == [new_job]

    project.produce("k1")
    counts = project.counts("k1", until=4)
    assert counts[:3] == [1, 2, 3] and counts[-1] == 4, counts
    assert all(n >= 3 for n in counts[3:]), counts  # continued from the checkpoint, not recounted from 1
    state = json.loads((project.path / ".streamt" / "state" / "default.json").read_text())
    (record,) = [r for r in state["resources"] if r["kind"] == "flink_job"]
    assert record["attributes"]["job_id"] == new_job and record["attributes"]["savepoint"] == path

    again = streamt_cli("plan", "-p", project.path)
    assert again.ok and {a["action"] for a in again.data["actions"]} == {"noop"}, again.envelope
    healthy = streamt_cli("status", "-p", project.path, "--health")
    assert healthy.exit_code == 0 and healthy.data["flink_jobs"][0]["status"] == "RUNNING", healthy.envelope

    # The second poison record is not JSON: the same loop, fixed by skipping what cannot be parsed.
    _checkpointed_after(project, new_job, int(time.time() * 1000))
    _produce_raw(project, b"not json, card 4111-secret")
    status = _crash_looping(streamt_cli, project)
    (entry,) = status.data["flink_jobs"]
    assert status.exit_code == 1 and entry["cause"]["exception"].endswith("JsonParseException"), entry
    assert "4111" not in json.dumps(status.envelope)
    skipping = {"format": {"ignore_parse_errors": True}}
    project.write(flink_extra=CHECKPOINTS, sql=FIXED, source_extra=skipping)
    planned = streamt_cli("plan", "-p", project.path, "--out", tmp_path / "skip.json")
    assert _flink(planned)["evidence"]["upgrade"]["mode"] == "last-state", planned.envelope
    applied = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "skip.json")
    assert applied.ok, applied.envelope
    third_job = project.wait_state("RUNNING")
    _produce_raw(project, b"{broken")  # skipped now: the job keeps running
    project.produce("k1")
    counts = project.counts("k1", until=5)
    assert counts[-1] == 5 and all(n >= 3 for n in counts[3:]), counts
    assert [j["jid"] for j in project.live()] == [third_job]
    history = requests.get(f"{project.endpoints['rest']}/jobs/{third_job}/exceptions", timeout=10).json()
    assert history["exceptionHistory"]["entries"] == []  # never restarted
    again = streamt_cli("plan", "-p", project.path)
    assert again.ok and {a["action"] for a in again.data["actions"]} == {"noop"}, again.envelope


def _flink(outcome: Any) -> dict[str, Any]:
    (action,) = [a for a in outcome.data["actions"] if a["kind"] == "flink_job"]
    return action


def test_a_fixed_delay_restart_strategy_ends_failed_and_the_failed_runbook_resubmits(project, streamt_cli, tmp_path):
    bounded = {**CHECKPOINTS, "restart_strategy": {"type": "fixed-delay", "attempts": 1, "delay_ms": 100}}
    project.write(flink_extra=bounded)
    project.wait_slot()
    assert streamt_cli("apply", "-p", project.path).ok
    old_job = project.wait_state("RUNNING")
    project.produce("k1", "k1")
    assert project.counts("k1", until=2)[-1] == 2
    _checkpointed_after(project, old_job, int(time.time() * 1000))
    _produce_raw(project, json.dumps({"id": None, "name": "n"}).encode())
    project.wait_state("FAILED", job_id=old_job)  # one restart, then Flink gives up: no loop
    status = streamt_cli("status", "-p", project.path, "--health")
    assert status.exit_code == 1 and status.data["flink_jobs"][0]["status"] == "FAILED", status.envelope

    project.write(flink_extra=bounded, sql=FIXED)
    planned = streamt_cli("plan", "-p", project.path, "--out", tmp_path / "resubmit.json")
    upgrade = _flink(planned)["evidence"]["upgrade"]
    assert upgrade["mode"] == "resubmit" and "/chk-" in str(upgrade["restore_from"]), planned.envelope
    applied = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "resubmit.json")
    assert applied.ok, applied.envelope
    project.wait_state("RUNNING")
    project.produce("k1")
    counts = project.counts("k1", until=3)
    assert counts[-1] == 3 and counts[:2] == [1, 2] and all(n >= 2 for n in counts[2:]), counts
