"""Reviewed recovery through the PostgreSQL v2 writer: SIGKILL mid-apply, then plan + recover, on the real broker.

With two topics in one Kafka batch, the apply boundaries are: 1 intent
recorded, 2 progress ``started``, 3 progress ``done`` (topics exist), then the
commit. Killing the process at a boundary leaves the marker in the catalog.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import psycopg2
import pytest
import yaml
from psycopg2.extensions import parse_dsn

WRITER_ENV = "STREAMT_TEST_PG_WRITER_DSN"
STREAMT = [str(Path(sys.executable).with_name("streamt"))]
ADDRESS = "streamt-state://platform/payments/default"

pytestmark = [pytest.mark.postgres, pytest.mark.kafka]


# -- project and broker helpers ---------------------------------------------------


def _declare(project: Path, bootstrap: str, topics: list[str]) -> None:
    path = project / "stream_project.yml"
    document = yaml.safe_load(path.read_text())
    document["runtime"]["kafka"]["bootstrap_servers"] = bootstrap
    document["models"] = [
        {
            "name": f"m{i}",
            "description": "a topic streamt owns",
            "advanced": {"topic": {"name": topic, "partitions": 1, "replication_factor": 1}},
        }
        for i, topic in enumerate(topics)
    ]
    path.write_text(yaml.safe_dump(document))


def _topics(n: int = 2) -> list[str]:
    run = uuid.uuid4().hex[:8]
    return [f"streamt-test.pgrec.{run}.t{i}" for i in range(n)]


def _live(bootstrap: str, topics: list[str]) -> set[str]:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        return set(admin.list_topics()) & set(topics)
    finally:
        admin.close()


def _delete(bootstrap: str, topics: list[str]) -> None:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.delete_topics(topics)
    finally:
        admin.close()
    deadline = time.monotonic() + 30
    while _live(bootstrap, topics):
        assert time.monotonic() < deadline, "the broker did not delete the topics"
        time.sleep(0.2)


def _process(*args: Any, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*STREAMT, "-o", "json", *map(str, args)],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _killed(project: Path, boundary: int, streamt_cli: Any) -> str:
    """Apply in a child process that SIGKILLs itself at ``boundary``; the blocked operation id."""
    child = _process("apply", "-p", project, env={"STREAMT_TEST_KILL_AT_BOUNDARY": str(boundary)})
    child.communicate(timeout=120)
    assert child.returncode == -9
    status = streamt_cli("state", "status", "-p", project)
    assert status.ok, status.envelope
    assert status.data["operation_status"]["status"] == "in_progress"
    return str(status.data["operation_status"]["operation_id"])


def _plan(streamt_cli: Any, project: Path, resolution: str, path: Path) -> dict[str, Any]:
    out = streamt_cli("state", "recovery-plan", "-p", project, "--resolution", resolution, "--out", path)
    assert out.ok, out.envelope
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    return dict(out.data)


def _recover_args(project: Path, plan: dict[str, Any], path: Path) -> list[Any]:
    return [
        "state", "recover", "-p", project, "--plan", path,
        "--confirm-operation-id", plan["blocked_operation_id"],
        "--confirm-resolution", plan["resolution"],
        "--confirm-evidence-checksum", plan["evidence_checksum"],
    ]  # fmt: skip


def _recover(streamt_cli: Any, project: Path, plan: dict[str, Any], path: Path) -> Any:
    return streamt_cli(*_recover_args(project, plan, path))


def _events(owner_sql: Any, schema: str) -> list[tuple[Any, ...]]:
    return owner_sql(
        f"SELECT seq, operation_id::text, event, status, document_checksum FROM {schema}.operation_history ORDER BY seq"
    )


def _lock_holders(postgres_writer_dsn: str) -> list[int]:
    """Sessions holding this address's advisory lock (exactly the recover under test)."""
    from streamt_postgres_state.db import address_lock_key

    unsigned = address_lock_key(ADDRESS) & 0xFFFFFFFFFFFFFFFF
    conn = psycopg2.connect(postgres_writer_dsn)
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT pid FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND granted"
                " AND classid = %s::oid AND objid = %s::oid AND objsubid = 1",
                (unsigned >> 32, unsigned & 0xFFFFFFFF),
            )
            return [pid for (pid,) in cur.fetchall()]
    finally:
        conn.close()


def _terminate(postgres_writer_dsn: str, pid: int) -> None:
    """Kill one writer session from a second writer-role session and wait until it is gone."""
    conn = psycopg2.connect(postgres_writer_dsn)
    conn.autocommit = True
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT pg_terminate_backend(%s)", (pid,))
            assert cur.fetchone()[0] is True
            deadline = time.monotonic() + 10
            while True:
                cur.execute("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE pid = %s", (pid,))
                if cur.fetchone()[0] == 0:
                    return
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        conn.close()


@pytest.fixture
def project(v2_project: Path, kafka_bootstrap: str) -> tuple[Path, list[str]]:
    topics = _topics()
    _declare(v2_project, kafka_bootstrap, topics)
    return v2_project, topics


@pytest.fixture
def observed(project: tuple[Path, list[str]], streamt_cli: Any, tmp_path: Path) -> tuple[Path, dict[str, Any], Path]:
    """Killed after both topics were created; reviewed ``observed`` evidence at the returned path."""
    path, _ = project
    _killed(path, 3, streamt_cli)
    return path, _plan(streamt_cli, path, "observed", tmp_path / "o.json"), tmp_path / "o.json"


# -- the three resolutions ----------------------------------------------------------


def test_observed_records_what_the_broker_has_and_the_retry_is_idempotent(
    project, streamt_cli, owner_sql, schema, kafka_bootstrap, tmp_path
) -> None:
    path, topics = project
    blocked = _killed(path, 3, streamt_cli)  # both topics created and recorded done; no commit
    assert _live(kafka_bootstrap, topics) == set(topics)

    apply = streamt_cli("apply", "-p", path)
    assert apply.error_codes == ["E419_STATE_RECOVERY_REQUIRED"] and apply.data["operation_id"] == blocked
    abandoned = streamt_cli(
        "state", "recovery-plan", "-p", path, "--resolution", "abandoned_before_mutation", "--out", tmp_path / "x"
    )
    assert abandoned.error_codes == ["E419_STATE_RECOVERY_REQUIRED"] and not (tmp_path / "x").exists()
    rolled = streamt_cli("state", "recovery-plan", "-p", path, "--resolution", "rolled_back", "--out", tmp_path / "r")
    assert rolled.error_codes == ["E408_PLAN_FILE_INVALID"] and not (tmp_path / "r").exists()

    plan = _plan(streamt_cli, path, "observed", tmp_path / "o.json")
    assert plan["blocked_operation_id"] == blocked
    evidence = json.loads((tmp_path / "o.json").read_text())
    assert evidence["store"]["backend"] == "postgres"
    assert {t["identity"]: t["classification"] for t in evidence["targets"]} == dict.fromkeys(topics, "candidate")
    store_id = owner_sql(f"SELECT store_id::text FROM {schema}.catalog_meta")[0][0]
    assert evidence["store"]["store_id"] == evidence["candidate_state"]["store_id"] == store_id
    before = _events(owner_sql, schema)

    done = _recover(streamt_cli, path, plan, tmp_path / "o.json")
    assert done.ok, done.envelope
    assert (done.data["state_serial"], done.data["state_changed"], done.data["control_status"]) == (1, True, "clear")
    assert done.data["store"] == {"backend": "postgres", "store_id": store_id}
    status = streamt_cli("state", "status", "-p", path)
    assert (status.data["serial"], status.data["checksum"]) == (1, done.data["state_checksum"])
    assert status.data["operation_status"]["status"] == "clear"
    (document,) = owner_sql(f"SELECT document FROM {schema}.ownership_state")[0]
    assert sorted(r["identity"] for r in document["resources"]) == sorted(topics)
    assert owner_sql(f"SELECT serial, operation_id::text FROM {schema}.ownership_history") == [(1, blocked)]
    events = _events(owner_sql, schema)
    assert events[: len(before)] == before
    recovered, recovery = events[len(before) :]
    assert recovered[1:4] == (blocked, "recovered", "clear")
    assert recovery[1:] == (
        plan["recovery_operation_id"],
        f"recovery:observed:{done.data['state_checksum']}",
        "clear",
        plan["evidence_checksum"],
    )

    retry = _recover(streamt_cli, path, plan, tmp_path / "o.json")  # exact retry: verified, nothing written
    assert retry.ok and retry.data["state_changed"] is False
    assert retry.data["state_checksum"] == done.data["state_checksum"]
    assert _events(owner_sql, schema) == events
    planned = streamt_cli("plan", "-p", path)
    assert planned.ok and planned.data["counts"]["create"] == 0
    assert streamt_cli("apply", "-p", path).ok
    assert not (path / ".streamt").exists(), "postgres recovery must never fall back to local files"


def test_rolled_back_after_the_operator_removed_the_topics(
    project, streamt_cli, owner_sql, schema, kafka_bootstrap, tmp_path
) -> None:
    path, topics = project
    blocked = _killed(path, 3, streamt_cli)
    _delete(kafka_bootstrap, topics)
    plan = _plan(streamt_cli, path, "rolled_back", tmp_path / "r.json")
    done = _recover(streamt_cli, path, plan, tmp_path / "r.json")
    assert done.ok, done.envelope
    assert (done.data["state_changed"], done.data["state_serial"], done.data["state_checksum"]) == (False, 0, None)
    status = streamt_cli("state", "status", "-p", path)
    assert (status.data["state_status"], status.data["operation_status"]["status"]) == ("absent", "clear")
    assert owner_sql(f"SELECT count(*) FROM {schema}.ownership_history") == [(0,)]
    last = _events(owner_sql, schema)[-2:]
    assert [e[1:3] for e in last] == [
        (blocked, "recovered"),
        (plan["recovery_operation_id"], "recovery:rolled_back:absent"),
    ]
    assert _recover(streamt_cli, path, plan, tmp_path / "r.json").data["state_changed"] is False
    assert _live(kafka_bootstrap, topics) == set()
    again = streamt_cli("apply", "-p", path)  # the blocker is gone; the operator re-creates them
    assert again.ok and _live(kafka_bootstrap, topics) == set(topics)


def test_rolled_back_when_the_kill_came_before_the_request(project, streamt_cli, kafka_bootstrap, tmp_path) -> None:
    path, topics = project
    _killed(path, 2, streamt_cli)  # progress "started" is durable, the create request was never sent
    assert _live(kafka_bootstrap, topics) == set()
    forbidden = streamt_cli(
        "state", "recovery-plan", "-p", path, "--resolution", "abandoned_before_mutation", "--out", tmp_path / "a"
    )
    assert forbidden.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]
    plan = _plan(streamt_cli, path, "rolled_back", tmp_path / "r.json")
    assert _recover(streamt_cli, path, plan, tmp_path / "r.json").ok
    assert streamt_cli("state", "status", "-p", path).data["operation_status"]["status"] == "clear"


def test_abandoned_before_mutation_keeps_the_prior_state(
    project, streamt_cli, owner_sql, schema, kafka_bootstrap, tmp_path
) -> None:
    path, topics = project
    _declare(path, kafka_bootstrap, topics[:1])
    assert streamt_cli("apply", "-p", path).ok  # serial 1 owns the first topic
    prior = streamt_cli("state", "status", "-p", path).data
    _declare(path, kafka_bootstrap, topics)
    blocked = _killed(path, 1, streamt_cli)  # intent recorded, nothing started
    assert _live(kafka_bootstrap, topics) == {topics[0]}

    plan = _plan(streamt_cli, path, "abandoned_before_mutation", tmp_path / "a.json")
    assert plan["blocked_operation_id"] == blocked
    assert json.loads((tmp_path / "a.json").read_text())["targets"] == []
    done = _recover(streamt_cli, path, plan, tmp_path / "a.json")
    assert done.ok, done.envelope
    assert (done.data["state_serial"], done.data["state_checksum"]) == (1, prior["checksum"])
    assert done.data["state_changed"] is False
    assert owner_sql(f"SELECT count(*) FROM {schema}.ownership_history") == [(1,)]
    assert _recover(streamt_cli, path, plan, tmp_path / "a.json").ok
    grown = streamt_cli("apply", "-p", path)
    assert grown.ok and _live(kafka_bootstrap, topics) == set(topics)
    assert streamt_cli("state", "status", "-p", path).data["serial"] == 2


def test_a_stale_plan_after_another_recovery_is_a_conflict(project, streamt_cli, tmp_path) -> None:
    path, _ = project
    _killed(path, 1, streamt_cli)
    first = _plan(streamt_cli, path, "abandoned_before_mutation", tmp_path / "1.json")
    second = _plan(streamt_cli, path, "abandoned_before_mutation", tmp_path / "2.json")
    assert first["recovery_operation_id"] != second["recovery_operation_id"]
    assert _recover(streamt_cli, path, first, tmp_path / "1.json").ok
    conflict = _recover(streamt_cli, path, second, tmp_path / "2.json")
    assert conflict.error_codes == ["E424_STATE_CONFLICT"]
    none_left = streamt_cli("state", "recovery-plan", "-p", path, "--resolution", "observed", "--out", tmp_path / "3")
    assert none_left.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]


# -- authority, secrets ---------------------------------------------------------------


def test_without_the_writer_credential_recovery_is_E420_and_never_falls_back(
    project, streamt_cli, monkeypatch, tmp_path
) -> None:
    path, _ = project
    blocked = _killed(path, 1, streamt_cli)
    plan = _plan(streamt_cli, path, "abandoned_before_mutation", tmp_path / "a.json")
    monkeypatch.delenv(WRITER_ENV)
    planned = streamt_cli(
        "state", "recovery-plan", "-p", path, "--resolution", "abandoned_before_mutation", "--out", tmp_path / "b"
    )
    assert planned.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"] and not (tmp_path / "b").exists()
    recovered = _recover(streamt_cli, path, plan, tmp_path / "a.json")
    assert recovered.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"]
    assert WRITER_ENV not in recovered.stdout + recovered.stderr
    assert not (path / ".streamt").exists()
    status = streamt_cli("state", "status", "-p", path)  # the owner credential still reads; the marker stays
    assert status.data["operation_status"] == {**status.data["operation_status"], "operation_id": blocked}
    assert status.data["operation_status"]["status"] == "in_progress"


def test_no_secret_reaches_output_or_evidence(
    project, streamt_cli, text_cli, schema, postgres_dsn, postgres_writer_dsn, kafka_bootstrap, monkeypatch, tmp_path
) -> None:
    from psycopg2.extensions import make_dsn

    path, _ = project
    _killed(path, 3, streamt_cli)
    owner, writer = parse_dsn(postgres_dsn), parse_dsn(postgres_writer_dsn)
    secrets = [
        postgres_dsn,
        postgres_writer_dsn,
        owner["password"],
        writer["password"],
        owner["user"],
        writer["user"],
        f"{writer['host']}:{writer['port']}",
        schema,
        WRITER_ENV,
        "STREAMT_TEST_PG_OWNER_DSN",
        kafka_bootstrap,
    ]
    plan = _plan(streamt_cli, path, "observed", tmp_path / "o.json")
    code, out, err = text_cli("state", "recovery-plan", "-p", path, "--resolution", "observed", "--out", tmp_path / "t")
    assert code == 0
    blob = (tmp_path / "o.json").read_text() + (tmp_path / "t").read_text() + out + err
    done = _recover(streamt_cli, path, plan, tmp_path / "o.json")
    assert done.ok
    code, out, err = text_cli(*_recover_args(path, plan, tmp_path / "o.json"))  # the verified retry, as text
    assert code == 0
    blob += done.stdout + done.stderr + out + err

    # A failing writer credential (sentinel password) is E420 without echo, in both output modes.
    sentinel = "SENTINEL-PW-0c7e"
    monkeypatch.setenv(WRITER_ENV, make_dsn(postgres_writer_dsn, password=sentinel))
    failed = _recover(streamt_cli, path, plan, tmp_path / "o.json")
    assert failed.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"]
    code, out, err = text_cli(*_recover_args(path, plan, tmp_path / "o.json"))
    assert code == 1
    blob += failed.stdout + failed.stderr + out + err
    for secret in [*secrets, sentinel]:
        assert secret not in blob, "a secret reached the output"
    for driver_text in ("psycopg2", "FATAL", "password authentication", "Traceback"):
        assert driver_text not in blob


# -- lost authority during recover ------------------------------------------------


def test_killing_the_writer_connection_mid_recover_is_E423_then_the_exact_retry_completes(
    observed, streamt_cli, postgres_writer_dsn, owner_sql, schema, tmp_path
) -> None:
    path, plan, evidence = observed
    blocked = plan["blocked_operation_id"]
    events = _events(owner_sql, schema)
    # The recover pauses at its boundary (after revalidation, before verify_lock and the commit) and
    # says when it got there; the pause only has to outlast the kill below.
    reached = tmp_path / "boundaries"
    paused = {"STREAMT_TEST_BOUNDARY_DELAY": "4", "STREAMT_TEST_BOUNDARY_REPORT": str(reached)}
    child = _process(*_recover_args(path, plan, evidence), env=paused)
    deadline = time.monotonic() + 30
    while not reached.exists():
        assert time.monotonic() < deadline and child.poll() is None, child.communicate()
        time.sleep(0.05)
    holders = _lock_holders(postgres_writer_dsn)
    assert child.poll() is None
    (pid,) = holders
    _terminate(postgres_writer_dsn, pid)
    out, _err = child.communicate(timeout=60)
    result = json.loads(out)
    assert [e["code"] for e in result["errors"]] == ["E423_STATE_LOCK_LOST"]
    assert result["data"]["operation_id"] == blocked
    assert _events(owner_sql, schema) == events, "nothing may be committed after authority was lost"
    assert streamt_cli("state", "status", "-p", path).data["operation_status"]["status"] == "in_progress"
    assert streamt_cli("apply", "-p", path).error_codes == ["E419_STATE_RECOVERY_REQUIRED"]

    retry = _recover(streamt_cli, path, plan, evidence)
    assert retry.ok and retry.data["state_changed"] is True and retry.data["state_serial"] == 1


def test_a_lost_commit_answer_is_E425_and_the_exact_retry_completes(
    observed, streamt_cli, postgres_writer_dsn, monkeypatch
) -> None:
    from streamt_postgres_state import backend, txn

    path, plan, evidence = observed
    calls: list[int] = []

    def commit_on_a_dead_session(cur: Any, operation_id: str | None = None) -> None:
        calls.append(cur.connection.get_backend_pid())
        _terminate(postgres_writer_dsn, calls[-1])  # the server aborts the open transaction
        txn.commit(cur, operation_id)

    monkeypatch.setattr(backend, "commit", commit_on_a_dead_session)
    unknown = _recover(streamt_cli, path, plan, evidence)
    assert unknown.error_codes == ["E425_STATE_UNKNOWN_OUTCOME"] and len(calls) == 1
    assert unknown.data["operation_id"] == plan["blocked_operation_id"]
    monkeypatch.setattr(backend, "commit", txn.commit)
    status = streamt_cli("state", "status", "-p", path)
    assert status.data["operation_status"]["status"] == "in_progress"  # the aborted commit left nothing
    retry = _recover(streamt_cli, path, plan, evidence)
    assert retry.ok and retry.data["state_changed"] is True


def test_a_verified_recovery_with_a_failed_release_is_E426_and_the_retry_verifies(
    observed, streamt_cli, postgres_writer_dsn, monkeypatch
) -> None:
    from streamt_postgres_state.backend import PostgresStateBackend

    path, plan, evidence = observed
    original = PostgresStateBackend.commit_recovery

    def then_lose_the_session(self: Any, *args: Any) -> Any:
        result = original(self, *args)
        _terminate(postgres_writer_dsn, self._conn.get_backend_pid())
        return result

    monkeypatch.setattr(PostgresStateBackend, "commit_recovery", then_lose_the_session)
    released = _recover(streamt_cli, path, plan, evidence)
    assert released.error_codes == ["E426_STATE_RELEASE_FAILED_AFTER_COMMIT"]
    assert released.data["committed"] is True and released.data["state_serial"] == 1
    monkeypatch.setattr(PostgresStateBackend, "commit_recovery", original)
    status = streamt_cli("state", "status", "-p", path)
    assert (status.data["serial"], status.data["operation_status"]["status"]) == (1, "clear")
    retry = _recover(streamt_cli, path, plan, evidence)
    assert retry.ok and retry.data["state_changed"] is False


# -- the protocol directly ---------------------------------------------------------------


def test_recovery_history_is_exact_and_a_different_entry_is_refused(project, streamt_cli, owner_sql, schema, tmp_path):
    from streamt.errors import StreamtError
    from streamt.project import load_project
    from streamt.state.selection import open_state_backend

    path, _ = project
    blocked = _killed(path, 1, streamt_cli)
    plan = _plan(streamt_cli, path, "abandoned_before_mutation", tmp_path / "a.json")
    assert _recover(streamt_cli, path, plan, tmp_path / "a.json").ok
    writer = open_state_backend(load_project(path, None), path, "write")
    entry = writer.read_recovery(plan["recovery_operation_id"])
    assert entry == {
        "blocked_operation_id": blocked,
        "recovery_operation_id": plan["recovery_operation_id"],
        "resolution": "abandoned_before_mutation",
        "evidence_checksum": plan["evidence_checksum"],
        "state_checksum": None,
    }
    assert writer.read_recovery(str(uuid.uuid4())) is None
    with writer.operation_lock():
        writer.verify_lock()
        assert writer.commit_recovery(entry, None, None) is None  # identical: accepted, nothing written
        with pytest.raises(StreamtError) as caught:
            writer.commit_recovery({**entry, "resolution": "rolled_back"}, None, None)
    assert caught.value.diagnostics[0].code.code == "E424_STATE_CONFLICT"
    with pytest.raises(StreamtError) as outside:
        writer.verify_lock()
    assert outside.value.diagnostics[0].code.code == "E423_STATE_LOCK_LOST"

    # A recovery event whose transition was tampered with is refused, never trusted.
    owner_sql(
        f"UPDATE {schema}.operation_history SET event = 'committed' WHERE event = 'recovered' AND operation_id = %s",
        (blocked,),
    )
    with pytest.raises(StreamtError) as tampered:
        writer.read_recovery(plan["recovery_operation_id"])
    assert tampered.value.diagnostics[0].code.code == "E411_STATE_INVALID"


# -- a runner replacement belongs to state runner-status / state resume -------------------


def test_generic_recovery_refuses_a_runner_replacement_and_writes_no_row(
    v2_project, streamt_cli, owner_sql, schema, tmp_path
) -> None:
    """The kind the coordinator's journal records is refused under the writer lock: no evidence, no DML."""
    from streamt.project import load_project
    from streamt.sdk import RUNNER_REPLACEMENT_OPERATION
    from streamt.state.selection import open_state_backend

    backend = open_state_backend(load_project(v2_project, None), v2_project, "write")
    intent = {"position": 0, "action": "replace", "kind": "kafka_streams_job", "name": "m", "identity": "m",
              "checksum": "sha256:" + "1" * 64, "from_checksum": "sha256:" + "0" * 64,
              "plan_checksum": "sha256:" + "2" * 64}  # fmt: skip
    with backend.operation_lock():
        control = backend.begin_operation(RUNNER_REPLACEMENT_OPERATION, [intent])
        backend.record_progress_many(control, [0], "started", evidence={"boundary": "candidate_created"})

    def rows() -> list[Any]:
        return [
            owner_sql(f"SELECT status, operation_id::text, document::text, updated_at FROM {schema}.operation_control"),
            _events(owner_sql, schema),
            owner_sql(f"SELECT * FROM {schema}.ownership_history"),
            owner_sql(f"SELECT * FROM {schema}.ownership_state"),
        ]

    before = rows()
    for resolution in ("observed", "rolled_back", "abandoned_before_mutation"):
        out = streamt_cli(
            "state", "recovery-plan", "-p", v2_project, "--resolution", resolution, "--out", tmp_path / "r.json"
        )
        assert out.error_codes == ["E419_STATE_RECOVERY_REQUIRED"], out.envelope
        assert out.data["operation_id"] == control.operation_id
        assert out.data["next_steps"][1] == f"streamt state resume --plan FILE --operation-id {control.operation_id}"
        assert not (tmp_path / "r.json").exists()
    blocked = streamt_cli("apply", "-p", v2_project)
    assert blocked.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]
    assert "state resume" in blocked.envelope["errors"][0]["suggestion"]
    assert rows() == before
    status = streamt_cli("state", "status", "-p", v2_project)
    assert status.data["operation_status"]["operation_kind"] == RUNNER_REPLACEMENT_OPERATION
