"""Recovery codes that need fault injection: malformed confirmations, E420, E425, E426 (no broker needed)."""

from __future__ import annotations

import contextlib
import json

import pytest
from streamt.state.local import LocalStateBackend

GOOD_ID = "0000000a-0000-4000-8000-00000000000b"
GOOD_SUM = "sha256:" + "0" * 64
PROJECT = {
    "stream_project.yml": {
        "project": {"name": "rec"},
        "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:9"}},
        "deployment_state": {"backend": "local", "lock_timeout_seconds": 1},
    }
}


def _blocked(root) -> LocalStateBackend:
    backend = LocalStateBackend(project_dir=root, project="rec", env="default")
    with backend.operation_lock():
        backend.begin_operation("apply", [])
    return backend


def _recover(streamt_cli, root, plan_file, data):
    return streamt_cli(
        "state", "recover", "-p", root, "--plan", plan_file,
        "--confirm-operation-id", data["blocked_operation_id"], "--confirm-resolution", data["resolution"],
        "--confirm-evidence-checksum", data["evidence_checksum"],
    )  # fmt: skip


@pytest.mark.parametrize(
    ("operation_id", "resolution", "checksum"),
    [
        (GOOD_ID.upper(), "observed", GOOD_SUM),
        ("not-a-uuid", "observed", GOOD_SUM),
        (GOOD_ID, "observe", GOOD_SUM),
        (GOOD_ID, "observed", GOOD_SUM.upper()),
        (GOOD_ID, "observed", "sha256:abc"),
    ],
)
def test_malformed_confirmations_fail_before_the_plan_is_read(
    streamt_cli, tmp_path, operation_id, resolution, checksum
):
    missing = tmp_path / "does-not-exist.json"
    out = streamt_cli(
        "state", "recover", "-p", tmp_path / "no-project", "--plan", missing, "--confirm-operation-id", operation_id,
        "--confirm-resolution", resolution, "--confirm-evidence-checksum", checksum,
    )  # fmt: skip
    assert out.error_codes == ["E408_PLAN_FILE_INVALID"] and "--confirm" in out.envelope["errors"][0]["message"]
    assert not (tmp_path / "no-project").exists()


def test_modified_and_mismatched_plans_are_refused(streamt_project, streamt_cli, tmp_path):
    root = streamt_project(PROJECT)
    _blocked(root)
    made = streamt_cli(
        "state", "recovery-plan", "-p", root, "--resolution", "abandoned_before_mutation", "--out", tmp_path / "p.json"
    )
    assert made.ok
    wrong = dict(made.data, resolution="observed")
    assert _recover(streamt_cli, root, tmp_path / "p.json", wrong).error_codes == ["E408_PLAN_FILE_INVALID"]
    document = json.loads((tmp_path / "p.json").read_text())
    document["resolution"] = "observed"
    (tmp_path / "q.json").write_text(json.dumps(document))
    tampered = dict(made.data, resolution="observed")
    assert _recover(streamt_cli, root, tmp_path / "q.json", tampered).error_codes == ["E408_PLAN_FILE_INVALID"]
    assert (root / ".streamt/state/default.control.json").exists()


def test_an_unavailable_backend_is_e420(streamt_project, streamt_cli, tmp_path):
    files = {"stream_project.yml": {**PROJECT["stream_project.yml"], "deployment_state": {"backend": "nope"}}}
    out = streamt_cli(
        "state", "recovery-plan", "-p", streamt_project(files), "--resolution", "observed", "--out", tmp_path / "x"
    )
    assert out.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"] and not (tmp_path / "x").exists()


def test_an_unconfirmed_commit_is_e425_with_the_operation_id(streamt_project, streamt_cli, tmp_path, monkeypatch):
    import streamt.state.local as local

    root = streamt_project(PROJECT)
    blocked = _blocked(root).read_control().operation_id
    made = streamt_cli(
        "state", "recovery-plan", "-p", root, "--resolution", "abandoned_before_mutation", "--out", tmp_path / "p.json"
    )

    def broken(*_args, **_kwargs):
        raise OSError(5, "I/O error")

    monkeypatch.setattr(local, "fsync_dir", broken)
    out = _recover(streamt_cli, root, tmp_path / "p.json", made.data)
    assert out.error_codes == ["E425_STATE_UNKNOWN_OUTCOME"] and out.data["operation_id"] == blocked
    assert out.envelope["errors"][0]["operation_id"] == blocked
    monkeypatch.undo()
    assert _recover(streamt_cli, root, tmp_path / "p.json", made.data).ok  # the identical retry finishes it


def test_a_release_failure_after_commit_is_e426_committed(streamt_project, streamt_cli, tmp_path, monkeypatch):
    root = streamt_project(PROJECT)
    _blocked(root)
    made = streamt_cli(
        "state", "recovery-plan", "-p", root, "--resolution", "abandoned_before_mutation", "--out", tmp_path / "p.json"
    )

    @contextlib.contextmanager
    def failing_release(self):
        yield
        raise OSError(9, "Bad file descriptor")

    monkeypatch.setattr(LocalStateBackend, "operation_lock", failing_release)
    out = _recover(streamt_cli, root, tmp_path / "p.json", made.data)
    assert out.error_codes == ["E426_STATE_RELEASE_FAILED_AFTER_COMMIT"] and out.data["committed"] is True
    assert not (root / ".streamt/state/default.control.json").exists()


def _replacement_blocked(root, kind="kafka_streams_replacement") -> LocalStateBackend:
    """A replacement interrupted after its old runner stopped (the journal the coordinator writes)."""
    backend = LocalStateBackend(project_dir=root, project="rec", env="default")
    intent = {"position": 0, "action": "replace", "kind": "kafka_streams_job", "name": "m", "identity": "m",
              "checksum": GOOD_SUM, "from_checksum": GOOD_SUM, "plan_checksum": GOOD_SUM}  # fmt: skip
    with backend.operation_lock():
        control = backend.begin_operation(kind, [intent])
        backend.record_progress_many(control, [0], "started", evidence={"boundary": "old_stopped"})
    return backend


def _state_files(root) -> dict[str, bytes]:
    """Every state file but the lock file (acquiring the lock may create it)."""
    state = root / ".streamt/state"
    files = sorted(p for p in state.rglob("*") if p.is_file() and p.suffix != ".lock")
    return {str(p.relative_to(state)): p.read_bytes() for p in files}


@pytest.mark.parametrize("resolution", ["observed", "rolled_back", "abandoned_before_mutation"])
def test_recovery_plan_refuses_a_runner_replacement_and_writes_nothing(
    streamt_project, streamt_cli, tmp_path, resolution
):
    root = streamt_project(PROJECT)
    blocked = _replacement_blocked(root).read_control().operation_id
    before = _state_files(root)
    out = streamt_cli("state", "recovery-plan", "-p", root, "--resolution", resolution, "--out", tmp_path / "p.json")
    assert out.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]
    assert out.data["operation_id"] == blocked and out.data["operation_kind"] == "kafka_streams_replacement"
    assert out.data["next_steps"] == [
        f"streamt state runner-status --plan FILE --operation-id {blocked}",
        f"streamt state resume --plan FILE --operation-id {blocked}",
    ]
    error = out.envelope["errors"][0]
    assert "state runner-status" in error["suggestion"] and "state resume" in error["suggestion"]
    assert "format-6 plan file" in error["suggestion"]
    assert not (tmp_path / "p.json").exists()
    assert _state_files(root) == before  # the journal is untouched


def test_recovery_plan_refuses_an_operation_kind_core_does_not_know(streamt_project, streamt_cli, tmp_path):
    root = streamt_project(PROJECT)
    _replacement_blocked(root, kind="some_plugin_migration")
    out = streamt_cli("state", "recovery-plan", "-p", root, "--resolution", "observed", "--out", tmp_path / "p.json")
    assert out.error_codes == ["E419_STATE_RECOVERY_REQUIRED"] and out.data["next_steps"] == []
    assert not (tmp_path / "p.json").exists()


def test_recover_refuses_evidence_of_a_runner_replacement_before_touching_state(streamt_project, streamt_cli, tmp_path):
    """Even a well-sealed evidence file (the checksum is no signature) cannot resolve a replacement."""
    from streamt.recovery import evidence as ev

    root = streamt_project(PROJECT)
    backend = _replacement_blocked(root)
    control = backend.read_control()
    before = _state_files(root)
    document = ev.seal(
        {
            "store": {"backend": "local", "store_id": None},
            "address": backend.address,
            "blocked_operation_id": control.operation_id,
            "recovery_operation_id": "0000000a-0000-4000-8000-00000000000c",
            "resolution": "abandoned_before_mutation",
            "preimage": {
                "state_serial": 0, "state_checksum": None, "control_checksum": control.to_document()["checksum"],
                "control_status": control.status, "operation_kind": control.operation_kind,
                "actions": list(control.actions), "progress": [p.to_json() for p in control.progress],
            },
            "project": None,
            "targets": [],
            "candidate_state": None,
        }
    )  # fmt: skip
    ev.write(tmp_path / "p.json", document)
    out = _recover(streamt_cli, root, tmp_path / "p.json", document)
    assert out.error_codes == ["E419_STATE_RECOVERY_REQUIRED"] and out.data["operation_id"] == control.operation_id
    assert "state resume" in out.envelope["errors"][0]["suggestion"]
    assert _state_files(root) == before
    # The file says apply, the live marker is the replacement: refused under the lock as well.
    forged = ev.seal({**{k: v for k, v in document.items() if k not in ("format", "version", "evidence_checksum")},
                      "preimage": {**document["preimage"], "operation_kind": "apply"}})  # fmt: skip
    ev.write(tmp_path / "q.json", forged)
    out = _recover(streamt_cli, root, tmp_path / "q.json", forged)
    assert out.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]
    assert _state_files(root) == before


def test_apply_blocked_by_a_pending_replacement_names_state_resume(streamt_project, streamt_cli):
    root = streamt_project(PROJECT)
    _replacement_blocked(root)
    out = streamt_cli("apply", "-p", root)
    assert out.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]
    suggestion = out.envelope["errors"][0]["suggestion"]
    assert "state resume" in suggestion and "recovery-plan" not in suggestion
