"""The local state backend against a real filesystem and real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from streamt.errors import StreamtError
from streamt.state.local import LocalStateBackend
from streamt.state.records import OwnershipRecord, OwnershipState


def _backend(tmp_path: Path, **kwargs) -> LocalStateBackend:
    return LocalStateBackend(project_dir=tmp_path, project="payments", env="dev", **kwargs)


def _record(name: str) -> OwnershipRecord:
    return OwnershipRecord(
        resource_id=f"streamt://payments/dev/topic/{name}",
        kind="topic",
        name=name,
        identity=f"{name}.v1",
        ownership="managed",
        artifact_checksum="sha256:" + "0" * 64,
        provider="streamt-kafka",
    )


def test_status_of_a_fresh_project_creates_nothing(tmp_path: Path) -> None:
    status = _backend(tmp_path).status()
    assert status["state_status"] == "absent"
    assert status["serial"] == 0
    assert status["operation_status"]["status"] == "clear"
    assert status["address"] == "streamt-state://local/payments/dev"
    assert not (tmp_path / ".streamt").exists()


# The protocol's behaviour (commit, markers, conflicts, locking, recovery) is checked by
# streamt_testing.contracts in test_state_local_contract.py; these tests cover the local files.


def test_a_commit_writes_one_history_file_per_serial_and_removes_the_control_file(tmp_path: Path) -> None:
    backend = _backend(tmp_path)
    with backend.operation_lock():
        control = backend.begin_operation("apply", [{"action": "create", "resource": "orders"}])
        control = backend.record_progress(control, 0, "done")
        backend.commit(control, [_record("orders")])
    assert not backend.control_path.exists()
    history = sorted(backend.history_dir.iterdir())
    assert [p.name for p in history] == ["0000000001.json"]
    assert json.loads(history[0].read_text())["operation_id"] == control.operation_id


@pytest.mark.parametrize("target", ["state", "control"])
def test_tampered_documents_are_refused(tmp_path: Path, target: str) -> None:
    backend = _backend(tmp_path)
    with backend.operation_lock():
        control = backend.begin_operation("apply", [])
        if target == "state":
            backend.commit(control, [_record("orders")])
    path = backend.state_path if target == "state" else backend.control_path
    document = json.loads(path.read_text())
    if target == "state":
        document["serial"] = 7
    else:
        document["status"] = "clear"
    path.write_text(json.dumps(document))
    with pytest.raises(StreamtError) as caught:
        backend.status()
    assert caught.value.diagnostics[0].code.code == "E411_STATE_INVALID"


def test_unchanged_state_bytes_are_parsed_once_and_changed_ones_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = _backend(tmp_path)
    with backend.operation_lock():
        backend.commit(backend.begin_operation("apply", []), [_record("orders")])
    parsed: list[object] = []
    original = OwnershipState.from_document
    monkeypatch.setattr(OwnershipState, "from_document", classmethod(lambda cls, *a: parsed.append(a) or original(*a)))
    reader = _backend(tmp_path)
    first = reader.status()
    assert reader.read_state() is reader.read_state()
    assert len(parsed) == 1
    # Another writer commits: the reader sees the new serial, parsed from the new bytes.
    with backend.operation_lock():
        backend.commit(backend.begin_operation("apply", []), [_record("orders"), _record("refunds")])
    before = len(parsed)
    second = reader.status()
    assert (second["serial"], len(parsed)) == (first["serial"] + 1, before + 1)
    # A file tampered with after a cached read is still refused.
    document = json.loads(backend.state_path.read_text())
    document["serial"] = 9
    backend.state_path.write_text(json.dumps(document))
    with pytest.raises(StreamtError) as caught:
        reader.read_state()
    assert caught.value.diagnostics[0].code.code == "E411_STATE_INVALID"


def test_state_of_another_address_is_refused(tmp_path: Path) -> None:
    backend = _backend(tmp_path)
    with backend.operation_lock():
        backend.commit(backend.begin_operation("apply", []), [])
    other = LocalStateBackend(project_dir=tmp_path, project="billing", env="dev")
    with pytest.raises(StreamtError) as caught:
        other.read_state()
    assert caught.value.diagnostics[0].code.code == "E411_STATE_INVALID"


def test_garbage_state_file_is_a_structured_error(tmp_path: Path) -> None:
    backend = _backend(tmp_path)
    backend.directory.mkdir(parents=True)
    backend.state_path.write_bytes(b"\x00\xffnot json")
    with pytest.raises(StreamtError) as caught:
        backend.read_state()
    assert caught.value.diagnostics[0].code.code == "E411_STATE_INVALID"


_HOLDER = """
import sys
from pathlib import Path
from streamt.state.local import LocalStateBackend
backend = LocalStateBackend(project_dir=Path(sys.argv[1]), project="payments", env="dev")
with backend.operation_lock():
    print("locked", flush=True)
    sys.stdin.readline()
"""


def _start_holder(project_dir: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(project_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def test_a_second_process_times_out_on_the_lock(tmp_path: Path) -> None:
    holder = _start_holder(tmp_path)
    try:
        waiter = _backend(tmp_path, lock_timeout_seconds=0.3)
        started = time.monotonic()
        with pytest.raises(StreamtError) as caught, waiter.operation_lock():
            pass
        assert caught.value.diagnostics[0].code.code == "E422_STATE_LOCK_TIMEOUT"
        assert time.monotonic() - started >= 0.3
    finally:
        holder.communicate("\n", timeout=30)
    with _backend(tmp_path, lock_timeout_seconds=5).operation_lock():
        pass  # released once the holder is gone


def test_the_lock_is_released_when_the_holder_is_killed(tmp_path: Path) -> None:
    holder = _start_holder(tmp_path)
    holder.kill()
    holder.wait(30)
    with _backend(tmp_path, lock_timeout_seconds=5).operation_lock():
        pass


_KILLED_AFTER_THE_HISTORY_ENTRY = """
import sys
from streamt.state.local import LocalStateBackend
from streamt.state.records import OwnershipRecord

backend = LocalStateBackend(project_dir=sys.argv[1], project="payments", env="dev")
record = OwnershipRecord(
    resource_id="streamt://payments/dev/topic/orders", kind="topic", name="orders", identity="orders.v1",
    ownership="managed", artifact_checksum="sha256:" + "0" * 64, provider="streamt-kafka",
)
with backend.operation_lock():
    control = backend.begin_operation("apply", [{"action": "create", "resource": "orders"}])
    backend.commit(control, [record])  # its first boundary: the history entry is written, the state file is not
"""


def _killed_after_the_history_entry(tmp_path: Path) -> LocalStateBackend:
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_AFTER_THE_HISTORY_ENTRY, str(tmp_path)],
        env={**os.environ, "STREAMT_TEST_KILL_AT_BOUNDARY": "1"},
        check=False,
    )
    assert killed.returncode == -9
    backend = _backend(tmp_path)
    assert [p.name for p in backend.history_dir.iterdir()] == ["0000000001.json"]
    assert backend.read_state() is None and backend.read_control().status == "in_progress"
    return backend


@pytest.mark.parametrize("candidate", [True, False], ids=["observed", "rolled-back"])
def test_a_commit_killed_after_its_history_entry_is_recovered_and_applies_go_on(
    tmp_path: Path, candidate: bool
) -> None:
    backend = _killed_after_the_history_entry(tmp_path)
    blocked = backend.read_control()
    interrupted = (backend.history_dir / "0000000001.json").read_bytes()
    state = OwnershipState(store_id="s", address=backend.address, serial=1, records=(_record("orders"),))
    entry = {
        "blocked_operation_id": blocked.operation_id,
        "recovery_operation_id": "5f0e7d7e-6c53-4c4f-9a55-9d3c1f3e2a10",
        "resolution": "observed" if candidate else "rolled_back",
        "evidence_checksum": "sha256:" + "1" * 64,
        "state_checksum": state.checksum if candidate else None,
    }
    with backend.operation_lock():
        installed = backend.commit_recovery(entry, None, state if candidate else None)
    assert backend.read_control().status == "clear"
    assert (installed is not None) is candidate
    # The interrupted entry is kept beside the history, never deleted or counted as a commit.
    kept = [p for p in backend.history_dir.iterdir() if p.name.startswith("interrupted-")]
    assert [p.read_bytes() for p in kept] == ([interrupted] if candidate else [])
    with backend.operation_lock():  # the next apply commits the next serial
        control = backend.begin_operation("apply", [{"action": "create", "resource": "retry"}])
        committed = backend.commit(control, [_record("orders"), _record("retry")])
    assert committed.serial == (2 if candidate else 1)
    assert json.loads((backend.history_dir / f"{committed.serial:010d}.json").read_text())["operation_id"] == (
        control.operation_id
    )


def test_a_history_entry_on_another_state_still_blocks_the_commit(tmp_path: Path) -> None:
    backend = _killed_after_the_history_entry(tmp_path)
    path = backend.history_dir / "0000000001.json"
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "previous_checksum": "sha256:" + "2" * 64}))
    with pytest.raises(StreamtError) as caught, backend.operation_lock():
        backend.commit(backend.read_control(), [_record("orders")])
    assert caught.value.diagnostics[0].code.code == "E424_STATE_CONFLICT"
    assert [p.name for p in backend.history_dir.iterdir()] == ["0000000001.json"]
