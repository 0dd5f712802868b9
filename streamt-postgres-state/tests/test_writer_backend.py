"""Ordinary state authority: the writer role, the address lock on one connection, atomic commits."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest
from streamt.errors import StreamtError
from streamt.project import load_project
from streamt.state.records import OwnershipRecord
from streamt.state.selection import open_state_backend

pytestmark = pytest.mark.postgres


def _writer(project, env=None):
    return open_state_backend(load_project(project, env), project, "write")


def _record(name: str) -> OwnershipRecord:
    return OwnershipRecord(
        resource_id=f"streamt://payments/default/topic/{name}",
        kind="topic",
        name=name,
        identity=name,
        ownership="managed",
        artifact_checksum="sha256:" + "0" * 64,
        provider="streamt-kafka",
    )


def _code(excinfo) -> str:
    return excinfo.value.diagnostics[0].code.code


# The protocol's behaviour (commit, markers, conflicts, locking, recovery) is checked by
# streamt_testing.contracts in test_backend_contract.py; these tests cover what is PostgreSQL's own.


def test_commits_and_progress_are_recorded_in_the_history_tables(v2_project, owner_sql, schema) -> None:
    backend = _writer(v2_project)
    with backend.operation_lock():
        control = backend.begin_operation("apply", [{"action": "create", "resource": "orders"}])
        control = backend.record_progress(control, 0, "started")
        control = backend.record_progress(control, 0, "done")
        backend.commit(control, [_record("orders")])
    with backend.operation_lock():
        backend.commit(backend.begin_operation("apply", []), [_record("orders"), _record("payments")])
    history = owner_sql(f"SELECT serial, operation_id::text FROM {schema}.ownership_history ORDER BY serial")
    assert [s for s, _ in history] == [1, 2]
    assert history[0][1] == control.operation_id
    events = owner_sql(f"SELECT seq, event FROM {schema}.operation_history ORDER BY seq")
    assert [e for _, e in events] == ["begun", "progress", "progress", "committed", "begun", "committed"]


def test_writes_outside_the_lock_are_refused(v2_project) -> None:
    with pytest.raises(StreamtError) as caught:
        _writer(v2_project).begin_operation("apply", [])
    assert _code(caught) == "E423_STATE_LOCK_LOST"


HOLDER = textwrap.dedent(
    """
    import sys
    from streamt.project import load_project
    from streamt.state.selection import open_state_backend
    backend = open_state_backend(load_project(sys.argv[1], None), sys.argv[1], "write")
    with backend.operation_lock():
        print("locked", flush=True)
        sys.stdin.readline()  # held until the test says so (or its end closes the pipe)
    print("released", flush=True)
    """
)


def test_a_lock_held_by_another_process_makes_the_second_wait_then_E422(v2_project, streamt_cli) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(v2_project)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert streamt_cli("state", "lock-status", "-p", v2_project).data["lock_status"] == "busy"
        backend = _writer(v2_project)  # lock_timeout_seconds: 2
        started = time.monotonic()
        with pytest.raises(StreamtError) as caught, backend.operation_lock():
            pass
        waited = time.monotonic() - started
        assert _code(caught) == "E422_STATE_LOCK_TIMEOUT"
        assert 2.0 <= waited < 5.0
    finally:
        out, _ = holder.communicate("release\n", timeout=30)
    assert out.strip() == "released"
    assert streamt_cli("state", "lock-status", "-p", v2_project).data["lock_status"] == "available"
    with _writer(v2_project).operation_lock():
        pass


def _terminate_writer(postgres_writer_dsn: str) -> int:
    """Kill the backend's lock connection from outside.

    The devstack owner role lacks pg_signal_backend, and a role may always
    signal its own sessions, so a second writer-role session does the kill.
    """
    import psycopg2

    conn = psycopg2.connect(postgres_writer_dsn)
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'streamt-writer' AND pid <> pg_backend_pid()"
                " AND usename = current_user"
            )
            return len(cur.fetchall())
    finally:
        conn.close()


def test_killing_the_writer_connection_mid_operation_is_E423_and_the_marker_remains(
    v2_project, postgres_writer_dsn
) -> None:
    backend = _writer(v2_project)
    with pytest.raises(StreamtError) as caught, backend.operation_lock():
        control = backend.begin_operation("apply", [{"action": "create"}])
        assert _terminate_writer(postgres_writer_dsn) == 1
        backend.record_progress(control, 0, "done")
    assert _code(caught) == "E423_STATE_LOCK_LOST"
    assert caught.value.data["operation_id"] == control.operation_id
    status = open_state_backend(load_project(v2_project, None), v2_project, "read").status()
    assert status["operation_status"]["status"] == "in_progress"
    assert status["operation_status"]["operation_id"] == control.operation_id
    # The dead session released the lock; the durable marker still blocks.
    with backend.operation_lock(), pytest.raises(StreamtError) as blocked:
        backend.begin_operation("apply", [])
    assert _code(blocked) == "E419_STATE_RECOVERY_REQUIRED"


def test_a_verified_commit_with_a_failed_release_is_E426_committed(v2_project, postgres_writer_dsn) -> None:
    backend = _writer(v2_project)
    with pytest.raises(StreamtError) as caught, backend.operation_lock():
        state = backend.commit(backend.begin_operation("apply", []), [_record("orders")])
        assert _terminate_writer(postgres_writer_dsn) == 1
    assert _code(caught) == "E426_STATE_RELEASE_FAILED_AFTER_COMMIT"
    assert caught.value.data["committed"] is True
    reread = _writer(v2_project).read_state()
    assert reread is not None and reread.serial == state.serial == 1


def test_a_version_1_store_grants_no_ordinary_authority(make_project, streamt_cli, init_args) -> None:
    project = make_project()
    assert streamt_cli(*init_args(project)).ok
    with pytest.raises(StreamtError) as caught, _writer(project).operation_lock():
        pass
    assert _code(caught) == "E420_STATE_BACKEND_UNAVAILABLE"
    # The writer role a version-1 catalog grants nothing is still told which command comes next.
    assert "version-2 catalog; this store is version 1" in caught.value.diagnostics[0].message
    assert "`streamt state migrate-postgres-v2 --confirm-store-id" in str(caught.value.diagnostics[0].suggestion)
    plan = streamt_cli("plan", "-p", project)
    assert plan.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"]
    assert "streamt state migrate-postgres-v2" in plan.envelope["errors"][0]["suggestion"]


def test_the_owner_credential_is_never_accepted_as_writer(v2_project, monkeypatch, postgres_dsn) -> None:
    monkeypatch.setenv("STREAMT_TEST_PG_WRITER_DSN", postgres_dsn)
    with pytest.raises(StreamtError) as caught:
        _writer(v2_project).read_state()
    assert _code(caught) == "E420_STATE_BACKEND_UNAVAILABLE"


def test_without_writer_dsn_env_there_is_no_fallback(v2_project, monkeypatch) -> None:
    monkeypatch.delenv("STREAMT_TEST_PG_WRITER_DSN")
    with pytest.raises(StreamtError) as caught, _writer(v2_project).operation_lock():
        pass
    assert _code(caught) == "E420_STATE_BACKEND_UNAVAILABLE"


def test_writer_dsn_env_must_differ_from_dsn_env(make_project) -> None:
    project = make_project(writer_dsn_env="STREAMT_TEST_PG_OWNER_DSN")
    with pytest.raises(StreamtError) as caught:
        _writer(project)
    assert _code(caught) == "E420_STATE_BACKEND_UNAVAILABLE"


def test_an_unregistered_address_is_invalid_for_the_writer(v2_project, make_project) -> None:
    project = make_project(envs=("dev",))
    with pytest.raises(StreamtError) as caught:
        _writer(project, "dev").read_state()
    assert _code(caught) == "E411_STATE_INVALID"
