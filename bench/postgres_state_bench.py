"""PostgreSQL deployment state: lock and commit latency, and readers against a held lock.

Against the devstack PostgreSQL (``.stack/endpoints.json``; start it with
``python3 tests/infra/devstack.py up --only postgres``), in a fresh random
schema that is dropped at the end:

* ``operation_lock`` enter+exit — writer connect, authority proof (primary,
  exact v2 catalog/ACL, writer identity), ``pg_try_advisory_lock``, unlock;
* raw lock acquire+release on an open session (``pg_try_advisory_lock`` +
  ``pg_advisory_unlock``);
* state commit — one ``begin_operation`` + ``commit`` pair under the lock,
  each one transaction that re-checks the lock and appends history;
* 20 concurrent ``state status`` readers (owner credential, repeatable-read
  read-only snapshots) against the same address while one operation holds
  the lock and keeps committing: every reader must finish, none may block
  the writer, and the writer's commit latency is compared with the idle one.

    .venv/bin/python bench/postgres_state_bench.py [--rounds 200] [--readers 20]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"median {statistics.median(ordered) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms, n={len(ordered)}"


def _setup(schema: str) -> Path:
    import yaml
    from psycopg2.extensions import parse_dsn
    from streamt.cli import run

    endpoints = json.loads((ROOT / ".stack" / "endpoints.json").read_text())
    os.environ["BENCH_PG_OWNER"] = endpoints["postgres_dsn"]
    os.environ["BENCH_PG_WRITER"] = endpoints["postgres_writer_dsn"]
    os.environ["BENCH_PG_ROLE"] = role = str(parse_dsn(endpoints["postgres_writer_dsn"])["user"])
    project = Path(tempfile.mkdtemp(prefix="pgbench-"))
    document = {
        "project": {"name": "bench"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "deployment_state": {
            "backend": "postgres",
            "namespace": "bench",
            "lock_timeout_seconds": 30,
            "postgres": {
                "dsn_env": "BENCH_PG_OWNER",
                "writer_dsn_env": "BENCH_PG_WRITER",
                "writer_role_env": "BENCH_PG_ROLE",
                "schema": schema,
            },
        },
    }
    (project / "stream_project.yml").write_text(yaml.safe_dump(document))
    import io

    out = io.StringIO()
    init = ["-o", "json", "state", "init", "-p", str(project), "--confirm-project", "bench", "--confirm-env"]
    assert run([*init, "default", "--confirm-address", "streamt-state://bench/bench/default"], stdout=out) == 0
    store_id = json.loads(out.getvalue())["data"]["store_id"]
    migrate = ["-o", "json", "state", "migrate-postgres-v2", "-p", str(project), "--confirm-store-id", store_id]
    assert run([*migrate, "--confirm-writer-role", role], stdout=io.StringIO()) == 0
    return project


def _backend(project: Path, purpose: str):
    from streamt.project import load_project
    from streamt.state.selection import open_state_backend

    return open_state_backend(load_project(project, None), project, purpose)


def _records(n: int):
    from streamt.state.records import OwnershipRecord

    return [
        OwnershipRecord(
            f"streamt://bench/default/topic/t{i}",
            "topic",
            f"t{i}",
            f"t{i}",
            "managed",
            "sha256:" + "0" * 64,
            "streamt-kafka",
        )
        for i in range(n)
    ]


def _commit_once(backend, records) -> float:
    started = time.perf_counter()
    control = backend.begin_operation("apply", [{"action": "noop"}])
    backend.commit(control, records)
    return time.perf_counter() - started


def bench(project: Path, rounds: int, readers: int) -> None:
    from streamt_postgres_state import db

    writer = _backend(project, "write")
    lock_cycle = []
    for _ in range(max(rounds // 4, 10)):
        started = time.perf_counter()
        with writer.operation_lock():
            pass
        lock_cycle.append(time.perf_counter() - started)
    print(f"operation_lock enter+exit (connect, prove, lock, unlock): {_ms(lock_cycle)}")

    conn = db.connect(os.environ["BENCH_PG_WRITER"], purpose="bench")
    key = db.address_lock_key("streamt-state://bench/bench/default")
    raw = []
    with conn.cursor() as cur:
        for _ in range(rounds):
            started = time.perf_counter()
            db.acquire_address_lock(cur, key, time.monotonic() + 5, 5)
            db.release_address_lock(cur, key)
            raw.append(time.perf_counter() - started)
    conn.close()
    print(f"raw advisory lock acquire+release on an open session:   {_ms(raw)}")

    records = _records(50)
    with writer.operation_lock():
        idle = [_commit_once(writer, records) for _ in range(rounds)]
    print(f"state commit (begin_operation + commit, 50 records):      {_ms(idle)}")

    reader_times: list[float] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def read_loop() -> None:
        backend = _backend(project, "read")
        while not stop.is_set():
            started = time.perf_counter()
            try:
                status = backend.status()
                assert status["state_status"] == "present"
            except BaseException as exc:  # reported below: the bench must not hang
                errors.append(exc)
                return
            reader_times.append(time.perf_counter() - started)

    threads = [threading.Thread(target=read_loop, daemon=True) for _ in range(readers)]
    with writer.operation_lock():
        for thread in threads:
            thread.start()
        time.sleep(0.5)  # readers are running before the writer measures
        busy = [_commit_once(writer, records) for _ in range(rounds)]
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    hung = sum(thread.is_alive() for thread in threads)
    print(f"{readers} readers (state status) while the lock is held:     {_ms(reader_times)}")
    print(f"state commit while {readers} readers run:                 {_ms(busy)}")
    print(f"readers finished: {readers - hung}/{readers}, reader errors: {len(errors)}")
    if hung or errors:
        raise SystemExit(f"FAILED: {hung} hung readers, errors: {[type(e).__name__ for e in errors]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--readers", type=int, default=20)
    args = parser.parse_args()
    import psycopg2

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, {sys.platform}")
    schema = "bench_" + secrets.token_hex(4)
    project = _setup(schema)
    try:
        conn = psycopg2.connect(os.environ["BENCH_PG_OWNER"])
        with conn.cursor() as cur:
            cur.execute("SHOW server_version")
            print(f"PostgreSQL {cur.fetchone()[0]} on loopback")
        conn.close()
        bench(project, args.rounds, args.readers)
    finally:
        conn = psycopg2.connect(os.environ["BENCH_PG_OWNER"])
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        conn.close()


if __name__ == "__main__":
    main()
