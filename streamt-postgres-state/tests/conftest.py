"""Fixtures for the PostgreSQL state tests: a real server (devstack), one fresh schema per test.

Each test gets its own random schema name, so tests are independent and can
run in any order; the schema is dropped afterwards with the owner credential.
The project under test names environment variables; their values are set
per test with monkeypatch.
"""

from __future__ import annotations

import io
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg2
import pytest
from psycopg2.extensions import parse_dsn

OWNER_ENV = "STREAMT_TEST_PG_OWNER_DSN"
WRITER_ENV = "STREAMT_TEST_PG_WRITER_DSN"
ROLE_ENV = "STREAMT_TEST_PG_WRITER_ROLE"


@pytest.fixture
def schema(postgres_dsn: str) -> Any:
    name = "st_" + secrets.token_hex(6)
    yield name
    conn = psycopg2.connect(postgres_dsn)
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
    conn.close()


@pytest.fixture
def owner_sql(postgres_dsn: str) -> Any:
    """Run one statement as the catalog owner (for drift and fault injection)."""
    conn = psycopg2.connect(postgres_dsn)
    conn.autocommit = True

    def run(query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with conn.cursor() as cur:
            cur.execute(query, args)
            return cur.fetchall() if cur.description else []

    yield run
    conn.close()


@pytest.fixture
def writer_role(postgres_writer_dsn: str) -> str:
    return str(parse_dsn(postgres_writer_dsn)["user"])


@pytest.fixture
def pg_env(monkeypatch: pytest.MonkeyPatch, postgres_dsn: str, postgres_writer_dsn: str, writer_role: str) -> None:
    monkeypatch.setenv(OWNER_ENV, postgres_dsn)
    monkeypatch.setenv(WRITER_ENV, postgres_writer_dsn)
    monkeypatch.setenv(ROLE_ENV, writer_role)


@pytest.fixture
def make_project(streamt_project: Callable[..., Path], schema: str, pg_env: None) -> Callable[..., Path]:
    """A project using the test schema; ``envs`` makes it multi-environment."""

    def make(envs: tuple[str, ...] = (), timeout: int = 2, **postgres: Any) -> Path:
        settings = {"dsn_env": OWNER_ENV, "writer_dsn_env": WRITER_ENV, "writer_role_env": ROLE_ENV, "schema": schema}
        settings.update(postgres)
        files: dict[str, Any] = {
            "stream_project.yml": {
                "project": {"name": "payments"},
                "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
                "deployment_state": {
                    "backend": "postgres",
                    "namespace": "platform",
                    "lock_timeout_seconds": timeout,
                    "postgres": {k: v for k, v in settings.items() if v is not None},
                },
            }
        }
        for env in envs:
            files[f"environments/{env}.yml"] = {
                "environment": {"name": env},
                "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
            }
        return streamt_project(files)

    return make


@pytest.fixture
def text_cli() -> Callable[..., tuple[int, str, str]]:
    """Run the CLI in text mode; returns (exit code, stdout, stderr)."""
    from streamt.cli import run

    def invoke(*args: Any) -> tuple[int, str, str]:
        stdout, stderr = io.StringIO(), io.StringIO()
        code = run([str(a) for a in args], stdout=stdout, stderr=stderr)
        return code, stdout.getvalue(), stderr.getvalue()

    return invoke


@pytest.fixture
def init_args() -> Callable[..., list[str]]:
    def args(project: Path, env: str = "default") -> list[str]:
        extra = [] if env == "default" else ["--env", env]
        return [
            "state",
            "init",
            "-p",
            str(project),
            *extra,
            "--confirm-project",
            "payments",
            "--confirm-env",
            env,
            "--confirm-address",
            f"streamt-state://platform/payments/{env}",
        ]

    return args


@pytest.fixture
def v2_project(make_project: Callable[..., Path], streamt_cli: Any, init_args: Any, writer_role: str) -> Path:
    """An initialized and migrated store with the default address registered."""
    project = make_project()
    created = streamt_cli(*init_args(project))
    assert created.ok, created.envelope
    migrated = streamt_cli(
        "state",
        "migrate-postgres-v2",
        "-p",
        project,
        "--confirm-store-id",
        created.data["store_id"],
        "--confirm-writer-role",
        writer_role,
    )
    assert migrated.ok, migrated.envelope
    return project
