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
