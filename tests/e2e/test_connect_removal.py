"""Reviewed removal of one exact connector: the real Connect worker running Debezium's JDBC sink into
the real PostgreSQL, with PostgreSQL v2 ownership state.

streamt applies a sink (rows reach PostgreSQL), then the model is replaced by a
`lifecycle.connector_removals` tombstone. Direct apply and a plan applied without `--force` change
nothing. In one run the DELETE's response is lost at the HTTP boundary (a proxy forwards it to the
worker and drops the connection): apply stops with `E428_CONNECTOR_REMOVAL_DRIFT`, recovery is
required, and the reviewed recovery (`observed`: the connector is gone) drops the record; the next
plan is an assessed no-op that advances no serial. In the other, the removal just succeeds.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

psycopg2 = pytest.importorskip("psycopg2")
requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.kafka, pytest.mark.connect, pytest.mark.postgres]

OWNER_ENV, WRITER_ENV, ROLE_ENV = "E2E_RM_PG_OWNER", "E2E_RM_PG_WRITER", "E2E_RM_PG_ROLE"
PASSWORD_VAR = "E2E_RM_JDBC_PASSWORD"
SCHEMA = {"type": "struct", "fields": [{"type": "string", "field": "id", "optional": False}]}


@attrs.define
class Sink:
    path: Path
    name: str
    topic: str
    schema: str
    files: dict[str, Any]

    @property
    def connector(self) -> str:
        """The live name: scoped by project and environment (streamt_connect.naming)."""
        return f"rmc.default.{self.name}"

    def write(self) -> None:
        from streamt_testing import write_project

        write_project(self.path, self.files)

    def tombstone(self) -> None:
        project = self.files["stream_project.yml"]
        project["models"] = []
        project["lifecycle"] = {
            "connector_removals": [{"logical_owner": self.name, "name": self.connector, "cluster": "main"}]
        }
        self.write()


@pytest.fixture
def sink(
    tmp_path: Path,
    streamt_cli: Any,
    kafka_bootstrap: str,
    connect_url: str,
    postgres_dsn: str,
    postgres_writer_dsn: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Any]:
    from kafka import KafkaAdminClient, KafkaProducer
    from kafka.admin import NewTopic

    suffix = uuid.uuid4().hex[:10]
    name, topic, rows_schema, state_schema = f"rm_{suffix}", f"e2e-{suffix}.rows", f"rm_{suffix}", f"st_{suffix}"
    address = postgres_dsn.split("@", 1)[1].split("/", 1)[0]
    monkeypatch.setenv(OWNER_ENV, postgres_dsn)
    monkeypatch.setenv(WRITER_ENV, postgres_writer_dsn)
    monkeypatch.setenv(ROLE_ENV, postgres_writer_dsn.split("//", 1)[1].split(":", 1)[0])
    monkeypatch.setenv(PASSWORD_VAR, "owner-pw")
    owner = psycopg2.connect(postgres_dsn)
    owner.autocommit = True
    owner.cursor().execute(f"CREATE SCHEMA {rows_schema}")
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(topic, 1, 1)])
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    for i in range(2):
        producer.send(topic, json.dumps({"schema": SCHEMA, "payload": {"id": f"r{i}"}}).encode())
    producer.flush()
    producer.close()
    made: list[Any] = []

    def make(through: str) -> Sink:
        files = {
            "stream_project.yml": {
                "apiVersion": "streamt.dev/v1alpha1",
                "project": {"name": "rmc"},
                "runtime": {
                    "kafka": {"bootstrap_servers": kafka_bootstrap},
                    "connect": {"default": "main", "clusters": {"main": {"rest_url": through}}},
                },
                "deployment_state": {
                    "backend": "postgres",
                    "namespace": "e2e",
                    "lock_timeout_seconds": 5,
                    "postgres": {
                        "dsn_env": OWNER_ENV,
                        "writer_dsn_env": WRITER_ENV,
                        "writer_role_env": ROLE_ENV,
                        "schema": state_schema,
                    },
                },
                "sources": [{"name": "rows", "topic": topic}],
                "models": [
                    {
                        "name": name,
                        "from": [{"source": "rows"}],
                        "sink": {
                            "connector": "debezium-jdbc-sink",
                            "config": {
                                "connection.url": f"jdbc:postgresql://{address}/streamt",
                                "connection.username": "streamt_owner",
                                "connection.password": "${" + PASSWORD_VAR + "}",
                                "collection.name.format": f"{rows_schema}.rows",
                                "schema.evolution": "basic",
                            },
                        },
                    }
                ],
            }
        }
        made_sink = Sink(tmp_path / "p", name, topic, rows_schema, files)
        made_sink.write()
        init = streamt_cli(
            "state", "init", "-p", made_sink.path, "--confirm-project", "rmc", "--confirm-env", "default",
            "--confirm-address", "streamt-state://e2e/rmc/default",
        )  # fmt: skip
        assert init.ok, init.envelope
        migrated = streamt_cli(
            "state", "migrate-postgres-v2", "-p", made_sink.path, "--confirm-store-id", init.data["store_id"],
            "--confirm-writer-role", os.environ[ROLE_ENV],
        )  # fmt: skip
        assert migrated.ok, migrated.envelope
        made.append(made_sink)
        return made_sink

    try:
        yield make
    finally:
        for made_sink in made:
            # The worker itself: a test's connector URL may be a recording proxy that is gone by now.
            requests.delete(f"{connect_url}/connectors/{made_sink.connector}", timeout=30)
        admin.delete_topics([topic])
        admin.close()
        for schema in (rows_schema, state_schema):
            owner.cursor().execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        owner.close()


def rows_arrive(postgres_dsn: str, schema: str) -> list[Any]:
    connection = psycopg2.connect(postgres_dsn)
    try:
        deadline, found = time.monotonic() + 120, []
        while time.monotonic() < deadline and len(found) < 2:
            time.sleep(1)
            try:
                with connection.cursor() as cursor:
                    cursor.execute(f"SELECT id FROM {schema}.rows ORDER BY id")
                    found = cursor.fetchall()
            except psycopg2.Error:
                connection.rollback()
        return found
    finally:
        connection.close()


def applied_and_tombstoned(sink: Sink, streamt_cli: Any, postgres_dsn: str, tmp_path: Path) -> Path:
    first = streamt_cli("apply", "-p", sink.path)
    assert first.ok, first.envelope
    assert rows_arrive(postgres_dsn, sink.schema) == [("r0",), ("r1",)]
    sink.tombstone()
    # A direct apply plans the tombstone online: its delete is pending, so it is refused before any mutation.
    direct = streamt_cli("apply", "-p", sink.path)
    assert direct.error_codes == ["E418_REVIEWED_PLAN_REQUIRED"]
    assert f"connector '{sink.connector}'" in direct.envelope["errors"][0]["message"]
    plan_file = tmp_path / "removal.plan.json"
    planned = streamt_cli("plan", "-p", sink.path, "--out", plan_file)
    assert planned.ok, planned.envelope
    (delete,) = [a for a in planned.data["actions"] if a["action"] == "delete"]
    assert delete["kind"] == "connector_removal" and delete["evidence"]["removal"]["connector"] == sink.connector
    assert "owner-pw" not in plan_file.read_text() and "jdbc:postgresql" not in plan_file.read_text()
    unforced = streamt_cli("apply", "-p", sink.path, "--plan", plan_file)
    assert unforced.error_codes == ["E900_USAGE_ERROR"]
    return plan_file


def test_a_reviewed_removal_deletes_exactly_the_connector_and_its_record(
    recording_proxy: Any,
    sink: Any,
    streamt_cli: Any,
    streamt_cli_text: Any,
    connect_url: str,
    postgres_dsn: str,
    kafka_bootstrap: str,
    tmp_path: Path,
) -> None:
    with recording_proxy(connect_url) as proxy:
        made = sink(proxy.url)
        plan_file = applied_and_tombstoned(made, streamt_cli, postgres_dsn, tmp_path)
        proxy.calls.clear()
        removed = streamt_cli_text("apply", "-p", made.path, "--plan", plan_file, "--force")
        assert removed.exit_code == 0, removed.stdout + removed.stderr
        lines = removed.stdout.splitlines()
        assert any(line.startswith(f"  - {made.connector} ") and line.endswith(" deleted") for line in lines), lines
        assert "Summary: 0 created, 0 updated, 1 deleted, 1 unchanged" in lines, lines
        path = f"/connectors/{made.connector}"
        # fresh replan GET, equality GET, one DELETE, then GETs until 404
        assert proxy.calls[:3] == [("GET", path), ("GET", path), ("DELETE", path)]
        assert set(proxy.calls[3:]) == {("GET", path)}
        assert requests.get(f"{connect_url}/connectors/{made.connector}", timeout=10).status_code == 404
        status = streamt_cli("state", "status", "-p", made.path)
        assert status.ok, status.envelope
        assert_fulfilled_tombstone_is_inert(made, streamt_cli, kafka_bootstrap)


def assert_fulfilled_tombstone_is_inert(made: Sink, streamt_cli: Any, kafka_bootstrap: str) -> None:
    """After the committed delete the tombstone stays in the YAML, and a direct apply of a new topic proceeds."""
    from kafka import KafkaAdminClient

    planned = streamt_cli("plan", "-p", made.path)
    assert planned.ok, planned.envelope
    (removal,) = [a for a in planned.data["actions"] if a["kind"] == "connector_removal"]
    assert (removal["action"], removal["summary"]) == ("noop", "tombstone fulfilled: you may delete it from the YAML")
    extra = f"{made.topic}.extra"
    made.files["stream_project.yml"]["models"] = [
        {"name": f"{made.name}_extra", "advanced": {"topic": {"name": extra, "partitions": 1, "replication_factor": 1}}}
    ]
    made.write()
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    try:
        direct = streamt_cli("apply", "-p", made.path)
        assert direct.ok, direct.envelope
        assert direct.action_results[extra] == "created" and direct.action_results[made.connector] == "unchanged"
        assert direct.data["summary"] == {"created": 1, "updated": 0, "deleted": 0, "unchanged": 2}
        assert extra in admin.list_topics()
        assert streamt_cli("apply", "-p", made.path, "--target", f"{made.name}_extra").ok  # narrowed: the same
    finally:
        admin.delete_topics([extra])
        admin.close()


def test_a_lost_delete_response_is_e428_and_reviewed_recovery_settles_it(
    recording_proxy: Any, sink: Any, streamt_cli: Any, connect_url: str, postgres_dsn: str, tmp_path: Path
) -> None:
    with recording_proxy(connect_url) as proxy:
        made = sink(proxy.url)
        plan_file = applied_and_tombstoned(made, streamt_cli, postgres_dsn, tmp_path)
        proxy.rewrite = lambda method, path, status, body: None if method == "DELETE" else (status, body)
        lost = streamt_cli("apply", "-p", made.path, "--plan", plan_file, "--force")
        assert lost.error_codes == ["E428_CONNECTOR_REMOVAL_DRIFT"], lost.envelope
        assert [m for m, _ in proxy.calls].count("DELETE") == 1  # never retried
        proxy.rewrite = None
        # The worker did delete it; streamt could not prove it, so it keeps the record and blocks.
        assert requests.get(f"{connect_url}/connectors/{made.connector}", timeout=10).status_code == 404
        blocked = streamt_cli("plan", "-p", made.path, "--out", tmp_path / "blocked.json")
        assert blocked.ok and blocked.data["operation_status"]["status"] == "recovery_required", blocked.envelope
        assert streamt_cli("apply", "-p", made.path, "--plan", plan_file, "--force").error_codes == [
            "E419_STATE_RECOVERY_REQUIRED"
        ]

        evidence = tmp_path / "recovery.json"
        planned = streamt_cli("state", "recovery-plan", "-p", made.path, "--resolution", "observed", "--out", evidence)
        assert planned.ok, planned.envelope
        recovered = streamt_cli(
            "state", "recover", "-p", made.path, "--plan", evidence,
            "--confirm-operation-id", planned.data["blocked_operation_id"],
            "--confirm-resolution", "observed",
            "--confirm-evidence-checksum", planned.data["evidence_checksum"],
        )  # fmt: skip
        assert recovered.ok, recovered.envelope
        assert recovered.data["state_changed"] is True  # the prior connector record is dropped
        serial = streamt_cli("state", "status", "-p", made.path).data["serial"]

        # No record, no connector: the tombstone is an assessed no-op, and applying it advances nothing.
        again_file = tmp_path / "again.plan.json"
        again = streamt_cli("plan", "-p", made.path, "--out", again_file)
        assert again.ok and again.data["counts"]["delete"] == 0, again.envelope
        repeat = streamt_cli("apply", "-p", made.path, "--plan", again_file)
        assert repeat.ok, repeat.envelope
        assert streamt_cli("state", "status", "-p", made.path).data["serial"] == serial
