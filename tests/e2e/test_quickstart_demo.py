"""The steps of `./dev demo` on the bundled `examples/quickstart`, against the real devstack.

Kafka -> Flink (two jobs) -> Debezium's JDBC sink on the real Connect worker -> PostgreSQL: create
the external input topic, write the sample orders, apply, wait for the rows in PostgreSQL, read
`status`, and check a second plan changes nothing. The example is copied with a fresh project,
topic prefix and connector name (the demo and other tests share the worker and the JobManager)
and a fresh database; everything the test made is removed afterwards, Flink jobs first (the
TaskManager has 4 slots for everybody).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

psycopg2 = pytest.importorskip("psycopg2")
requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.kafka, pytest.mark.connect, pytest.mark.flink, pytest.mark.postgres]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


def sample_orders() -> Any:
    spec = importlib.util.spec_from_file_location("sample_orders", EXAMPLE / "sample_orders.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def renamed_copy(target: Path, suffix: str) -> Path:
    """The example under fresh names: project (Flink pipeline names), topics, connector."""
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns(".streamt", "generated", "__pycache__"))
    for path in target.rglob("*.yml"):
        text = path.read_text()
        text = text.replace("name: quickstart\n", f"name: qs{suffix}\n")
        text = text.replace("quickstart.orders.", f"qs{suffix}.orders.")
        text = text.replace("name: orders_to_db\n", f"name: orders_to_db_{suffix}\n")
        path.write_text(text)
    return target


@pytest.fixture
def database(postgres_dsn: str) -> Iterator[tuple[str, str]]:
    """A fresh database owned by streamt_owner: (host:port, name)."""
    address = postgres_dsn.split("@", 1)[1].split("/", 1)[0]
    name = f"qs_{uuid.uuid4().hex[:10]}"
    admin = psycopg2.connect(f"postgresql://postgres:postgres-pw@{address}/postgres")
    admin.autocommit = True
    admin.cursor().execute(f"CREATE DATABASE {name} OWNER streamt_owner")
    try:
        yield address, name
    finally:
        admin.cursor().execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


def rows(address: str, database: str) -> list[tuple[Any, ...]]:
    try:
        connection = psycopg2.connect(f"postgresql://streamt_owner:owner-pw@{address}/{database}")
    except psycopg2.OperationalError:
        return []
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT order_id, customer_id, amount_cents, created_at FROM orders ORDER BY order_id")
            return list(cursor.fetchall())
    except psycopg2.errors.UndefinedTable:
        return []  # the sink creates the table with its first batch
    finally:
        connection.close()


def cleanup(suffix: str, flink_rest_url: str, connect_url: str, bootstrap: str) -> None:
    listed = requests.get(f"{flink_rest_url}/jobs/overview", timeout=10).json()["jobs"]
    for job in listed:
        if job["name"].startswith(f"qs{suffix}/") and job["state"] not in ("FAILED", "CANCELED", "FINISHED"):
            requests.patch(f"{flink_rest_url}/jobs/{job['jid']}?mode=cancel", timeout=10)
    requests.delete(f"{connect_url}/connectors/qs{suffix}.default.orders_to_db_{suffix}", timeout=30)
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        names = [t for t in admin.list_topics() if t.startswith(f"qs{suffix}.")]
        if names:
            admin.delete_topics(names, raise_errors=False)
    finally:
        admin.close()


def test_the_quickstart_reaches_postgresql_and_a_second_plan_is_a_no_op(
    tmp_path: Path,
    streamt_cli: Any,
    database: tuple[str, str],
    kafka_bootstrap: str,
    connect_url: str,
    flink_rest_url: str,
    flink_sql_gateway_url: str,
) -> None:
    suffix = uuid.uuid4().hex[:8]
    project = renamed_copy(tmp_path / "quickstart", suffix)
    address, name = database
    env = {
        "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "KAFKA_INTERNAL_SERVERS": kafka_bootstrap,
        "FLINK_REST_URL": flink_rest_url,
        "FLINK_SQL_GATEWAY_URL": flink_sql_gateway_url,
        "CONNECT_URL": connect_url,
        "QUICKSTART_JDBC_URL": f"jdbc:postgresql://{address}/{name}",
        "QUICKSTART_JDBC_USER": "streamt_owner",
        "QUICKSTART_JDBC_PASSWORD": "owner-pw",
    }
    orders = sample_orders()
    try:
        # The external input topic, created as the README tells a user to, and the shop's orders.
        orders.create_topic(kafka_bootstrap, f"qs{suffix}.orders.raw")
        orders.produce(kafka_bootstrap, f"qs{suffix}.orders.raw")

        applied = streamt_cli("apply", "-p", project, env=env)
        assert applied.ok, applied.envelope
        assert applied.action_results == {
            f"qs{suffix}.orders.raw": "unchanged",  # external: declared, never touched
            f"qs{suffix}.orders.clean": "created",
            f"qs{suffix}.orders.for-db": "created",
            "orders_clean": "created",
            "orders_for_db": "created",
            f"qs{suffix}.default.orders_to_db_{suffix}": "created",  # the connector: scoped by project and env
        }

        expected = [(o["order_id"], o["customer_id"], o["amount_cents"], o["created_at"]) for o in orders.EXPECTED_ROWS]
        deadline, found = time.monotonic() + 180, []
        while time.monotonic() < deadline and found != expected:
            time.sleep(2)
            found = rows(address, name)
        assert found == expected

        status = streamt_cli("status", "-p", project, env=env)
        assert status.ok, status.envelope
        assert "RUNNING" in str(status.data)

        replan = streamt_cli("plan", "-p", project, env=env)
        assert replan.ok, replan.envelope
        assert {a["action"] for a in replan.data["actions"]} <= {"noop"}, replan.data["actions"]
    finally:
        cleanup(suffix, flink_rest_url, connect_url, kafka_bootstrap)


STREAMT = str(Path(sys.executable).with_name("streamt"))
_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ (start|done) (create) (\S+) (\S+)(?: \(\S+\))?$")


def _env(kafka: str, connect: str, flink_rest: str, gateway: str, database: tuple[str, str]) -> dict[str, str]:
    address, name = database
    return {
        **os.environ,
        "KAFKA_BOOTSTRAP_SERVERS": kafka,
        "KAFKA_INTERNAL_SERVERS": kafka,
        "FLINK_REST_URL": flink_rest,
        "FLINK_SQL_GATEWAY_URL": gateway,
        "CONNECT_URL": connect,
        "QUICKSTART_JDBC_URL": f"jdbc:postgresql://{address}/{name}",
        "QUICKSTART_JDBC_USER": "streamt_owner",
        "QUICKSTART_JDBC_PASSWORD": "owner-pw",
    }


def _apply_on_a_terminal(project: Path, env: dict[str, str]) -> tuple[str, str, bool]:
    """``streamt apply`` with stderr on a pseudo-terminal: (stdout, terminal text, live line seen while running)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [STREAMT, "apply", "-p", str(project)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=terminal,
        env=env,
    )
    os.close(terminal)
    seen, live_while_running, deadline = b"", False, time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # EIO: the process closed its end
                    break
                if not chunk:
                    break
                seen += chunk
                live_while_running |= b"elapsed]" in seen and process.poll() is None
            elif process.poll() is not None:
                break
        stdout = process.communicate(timeout=max(1.0, deadline - time.monotonic()))[0]
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
    return stdout.decode(), seen.decode(errors="replace"), live_while_running


def test_apply_progress_is_live_on_a_terminal_and_one_line_per_step_in_a_log(
    tmp_path: Path,
    database: tuple[str, str],
    kafka_bootstrap: str,
    connect_url: str,
    flink_rest_url: str,
    flink_sql_gateway_url: str,
) -> None:
    env = _env(kafka_bootstrap, connect_url, flink_rest_url, flink_sql_gateway_url, database)
    orders = sample_orders()
    on_terminal, in_a_log = uuid.uuid4().hex[:8], uuid.uuid4().hex[:8]
    try:
        project = renamed_copy(tmp_path / "terminal", on_terminal)
        orders.create_topic(kafka_bootstrap, f"qs{on_terminal}.orders.raw")
        stdout, shown, live_while_running = _apply_on_a_terminal(project, env)
        assert "Summary: 5 created" in stdout, stdout + shown
        assert live_while_running, shown  # "creating flink_job orders_clean... [12.0s elapsed]" before the end
        assert "creating flink_job orders_clean..." in shown and "\x1b[J" in shown
        for identity in ("orders_clean", "orders_for_db", f"qs{on_terminal}.default.orders_to_db_{on_terminal}"):
            assert re.search(rf"done create \w+ {identity} \(", shown), shown
        cleanup(on_terminal, flink_rest_url, connect_url, kafka_bootstrap)  # the TaskManager's slots are shared

        project = renamed_copy(tmp_path / "log", in_a_log)
        orders.create_topic(kafka_bootstrap, f"qs{in_a_log}.orders.raw")
        log = tmp_path / "apply.log"
        with log.open("w") as stderr:
            done = subprocess.run(
                [STREAMT, "-o", "json", "apply", "-p", str(project)],
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
                timeout=300,
                text=True,
            )
        envelope = json.loads(done.stdout)  # exactly one document: progress never reaches stdout
        assert done.returncode == 0 and envelope["status"] == "ok", done.stdout + log.read_text()
        created = sorted(a["identity"] for a in envelope["data"]["actions"] if a["result"] == "created")
        lines = [_STAMP.match(line) for line in log.read_text().splitlines()]
        assert all(lines), log.read_text()  # timestamped plain lines, no terminal control codes
        steps = sorted((m.group(4), m.group(1)) for m in lines if m)
        assert steps == sorted((identity, step) for identity in created for step in ("start", "done"))
    finally:
        cleanup(on_terminal, flink_rest_url, connect_url, kafka_bootstrap)
        cleanup(in_a_log, flink_rest_url, connect_url, kafka_bootstrap)
