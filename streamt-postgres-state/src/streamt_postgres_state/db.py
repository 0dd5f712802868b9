"""Connections, topology checks and advisory-lock primitives.

Only this module and its callers import psycopg2, and only when a command
runs: the plugin module itself stays import-light for ``streamt --help``.

Advisory locks are session state of one physical connection, so a lock is
only meaningful on a direct connection to one standalone primary; every
connection therefore proves it is not a replica and has no streaming
standbys before it is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Iterator
from typing import Any

from streamt_postgres_state.errors import lock_timeout, unavailable

CONNECT_TIMEOUT_SECONDS = 10
STATEMENT_TIMEOUT_MS = 30_000
_POLL_SECONDS = 0.05
# Schema-scoped locks use the two-int4 key space, which PostgreSQL keeps
# separate from the single-bigint space of address locks: they never collide.
_SCHEMA_LOCK_CLASS = 0x5354524D  # "STRM"


def driver() -> Any:
    try:
        import psycopg2
    except ImportError:
        raise unavailable(
            "The PostgreSQL driver is not installed.", "Install it with: pip install 'streamt[postgres]'"
        ) from None
    return psycopg2


def address_lock_key(address: str) -> int:
    """A stable signed bigint for ``address`` (first 8 bytes of its sha256)."""
    return int.from_bytes(hashlib.sha256(address.encode("utf-8")).digest()[:8], "big", signed=True)


def schema_lock_key(schema: str) -> tuple[int, int]:
    digest = hashlib.sha256(b"streamt-schema:" + schema.encode("utf-8")).digest()
    return _SCHEMA_LOCK_CLASS, int.from_bytes(digest[:4], "big", signed=True)


def connect(dsn: str, *, purpose: str) -> Any:
    """An autocommit connection; every failure is the same secret-neutral E420."""
    psycopg2 = driver()
    try:
        conn = psycopg2.connect(dsn, connect_timeout=CONNECT_TIMEOUT_SECONDS, application_name=f"streamt-{purpose}")
        conn.autocommit = True
        with conn.cursor() as cur:
            cur.execute("SET statement_timeout = %s", (STATEMENT_TIMEOUT_MS,))
    except psycopg2.Error:
        raise unavailable(
            "The PostgreSQL deployment-state store could not be reached with the configured credential.",
            "Check that the store is running and the named credential is valid; no fallback is used.",
        ) from None
    return conn


def close_quietly(conn: Any) -> None:
    with contextlib.suppress(Exception):
        conn.close()


def require_primary(cur: Any) -> None:
    """Refuse replicas and servers with streaming standbys (HA topologies are unsupported)."""
    cur.execute("SELECT pg_is_in_recovery(), (SELECT count(*) FROM pg_catalog.pg_stat_replication)")
    in_recovery, standbys = cur.fetchone()
    if in_recovery:
        raise unavailable(
            "The PostgreSQL deployment-state endpoint is a replica.",
            "Use a direct connection to the standalone primary.",
        )
    if standbys:
        raise unavailable(
            "The PostgreSQL deployment-state endpoint has streaming standbys; HA topologies are unsupported.",
            "Use a direct connection to one standalone primary.",
        )


def _poll(cur: Any, sql: str, args: tuple[Any, ...], deadline: float, timeout: float) -> None:
    while True:
        cur.execute(sql, args)
        if cur.fetchone()[0]:
            return
        if time.monotonic() >= deadline:
            raise lock_timeout(timeout)
        time.sleep(_POLL_SECONDS)


def acquire_schema_lock(cur: Any, schema: str, deadline: float, timeout: float) -> None:
    _poll(cur, "SELECT pg_try_advisory_lock(%s, %s)", schema_lock_key(schema), deadline, timeout)


def release_schema_lock(cur: Any, schema: str) -> bool:
    cur.execute("SELECT pg_advisory_unlock(%s, %s)", schema_lock_key(schema))
    return bool(cur.fetchone()[0])


def acquire_address_lock(cur: Any, key: int, deadline: float, timeout: float) -> None:
    _poll(cur, "SELECT pg_try_advisory_lock(%s)", (key,), deadline, timeout)


def release_address_lock(cur: Any, key: int) -> bool:
    cur.execute("SELECT pg_advisory_unlock(%s)", (key,))
    return bool(cur.fetchone()[0])


def holds_address_lock(cur: Any, key: int) -> bool:
    """Whether this session still holds the bigint advisory lock ``key`` (pg_locks splits it in two)."""
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    cur.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND granted"
        " AND pid = pg_backend_pid() AND classid = %s::oid AND objid = %s::oid AND objsubid = 1)",
        (unsigned >> 32, unsigned & 0xFFFFFFFF),
    )
    return bool(cur.fetchone()[0])


@contextlib.contextmanager
def snapshot(conn: Any) -> Iterator[Any]:
    """One bounded repeatable-read, read-only transaction; its rollback must succeed."""
    psycopg2 = driver()
    cur = conn.cursor()
    try:
        cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cur.execute("SET LOCAL search_path = pg_catalog")
        yield cur
    finally:
        try:
            cur.execute("ROLLBACK")
        except psycopg2.Error:
            raise unavailable("The read-only PostgreSQL transaction could not be rolled back.") from None
