"""The devstack PostgreSQL: each role logs in with its password; grants are left to the product."""

from __future__ import annotations

import pytest

psycopg2 = pytest.importorskip("psycopg2")

pytestmark = pytest.mark.postgres


def _who(dsn: str) -> tuple[str, str]:
    with psycopg2.connect(dsn, connect_timeout=5) as conn, conn.cursor() as cur:
        cur.execute("select current_user, current_database()")
        return cur.fetchone()


def test_owner_owns_the_database(postgres_dsn):
    assert _who(postgres_dsn) == ("streamt_owner", "streamt")
    with psycopg2.connect(postgres_dsn) as conn, conn.cursor() as cur:
        cur.execute("select pg_get_userbyid(datdba) from pg_database where datname = current_database()")
        assert cur.fetchone()[0] == "streamt_owner"


def test_writer_and_status_log_in_without_grants(postgres_writer_dsn, postgres_status_dsn):
    assert _who(postgres_writer_dsn)[0] == "streamt_writer"
    assert _who(postgres_status_dsn)[0] == "streamt_status"
    # PG15: PUBLIC may no longer create in schema public, and the stack grants nothing.
    conn = psycopg2.connect(postgres_writer_dsn)
    try:
        with conn.cursor() as cur, pytest.raises(psycopg2.errors.InsufficientPrivilege):
            cur.execute("create table public.devstack_probe (x int)")
    finally:
        conn.rollback()
        conn.close()


def test_password_is_checked(postgres_writer_dsn):
    bad = postgres_writer_dsn.replace(":writer-pw@", ":nope@")
    with pytest.raises(psycopg2.OperationalError, match="password authentication failed"):
        psycopg2.connect(bad, connect_timeout=5)
