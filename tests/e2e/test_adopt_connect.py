"""`adopt --kind connector` against the real Connect worker running Debezium's JDBC sink into the
real PostgreSQL, for local and PostgreSQL v2 ownership state.

The connector is created by hand (as a team would have before streamt), writes real rows, and is
then declared `ownership: adopted`. Connect is reached through a recording proxy: adoption makes
exactly one `GET /connectors/<name>` before and one after confirmation, and nothing else. The
review shows no configuration value (the JDBC password and URL are sentinels that must not appear).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

psycopg2 = pytest.importorskip("psycopg2")
requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.kafka, pytest.mark.connect, pytest.mark.postgres]

JDBC_SINK = "io.debezium.connector.jdbc.JdbcSinkConnector"
PASSWORD_VAR = "E2E_ADOPT_JDBC_PASSWORD"
OWNER_ENV, WRITER_ENV, ROLE_ENV = "E2E_ADOPT_PG_OWNER", "E2E_ADOPT_PG_WRITER", "E2E_ADOPT_PG_ROLE"

SCHEMA = {
    "type": "struct",
    "fields": [{"type": "string", "field": "id", "optional": False}, {"type": "int64", "field": "n"}],
}


@pytest.fixture
def live_connector(kafka_bootstrap: str, connect_url: str, postgres_dsn: str) -> Iterator[dict[str, Any]]:
    """A hand-made JDBC sink writing three rows into a fresh PostgreSQL schema."""
    from kafka import KafkaAdminClient, KafkaProducer
    from kafka.admin import NewTopic

    suffix = uuid.uuid4().hex[:10]
    topic, name, schema = f"e2e-{suffix}.rows", f"adopted_{suffix}", f"adopt_{suffix}"
    address = postgres_dsn.split("@", 1)[1].split("/", 1)[0]
    owner = psycopg2.connect(postgres_dsn)
    owner.autocommit = True
    owner.cursor().execute(f"CREATE SCHEMA {schema}")
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    admin.create_topics([NewTopic(topic, 1, 1)])
    producer = KafkaProducer(bootstrap_servers=kafka_bootstrap)
    for i in range(3):
        producer.send(topic, json.dumps({"schema": SCHEMA, "payload": {"id": f"r{i}", "n": i}}).encode())
    producer.flush()
    producer.close()
    config = {
        "connector.class": JDBC_SINK,
        "topics": topic,
        "connection.url": f"jdbc:postgresql://{address}/streamt",
        "connection.username": "streamt_owner",
        "connection.password": "owner-pw",
        "collection.name.format": f"{schema}.rows",
        "insert.mode": "upsert",
        "primary.key.mode": "record_value",
        "primary.key.fields": "id",
        "schema.evolution": "basic",
    }
    created = requests.put(f"{connect_url}/connectors/{name}/config", json=config, timeout=60)
    assert created.status_code == 201, created.status_code
    try:
        deadline, rows = time.monotonic() + 120, []
        while time.monotonic() < deadline and len(rows) < 3:
            time.sleep(1)
            try:
                with owner.cursor() as cursor:
                    cursor.execute(f"SELECT id, n FROM {schema}.rows ORDER BY id")
                    rows = cursor.fetchall()
            except psycopg2.errors.UndefinedTable:
                rows = []
        assert rows == [("r0", 0), ("r1", 1), ("r2", 2)]
        yield {"name": name, "topic": topic, "config": config, "address": address}
    finally:
        requests.delete(f"{connect_url}/connectors/{name}", timeout=30)
        admin.delete_topics([topic])
        admin.close()
        owner.cursor().execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        owner.close()


def project_files(connector: dict[str, Any], connect_url: str, bootstrap: str, state: dict[str, Any]) -> dict[str, Any]:
    config = {k: v for k, v in connector["config"].items() if k not in ("connector.class", "topics")}
    config["connection.password"] = "${" + PASSWORD_VAR + "}"
    return {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "adoptc"},
            "runtime": {
                "kafka": {"bootstrap_servers": bootstrap},
                "connect": {"default": "main", "clusters": {"main": {"rest_url": connect_url}}},
            },
            "deployment_state": state,
            "sources": [{"name": "rows", "topic": connector["topic"]}],
            "models": [
                {
                    "name": connector["name"],
                    "from": [{"source": "rows"}],
                    "ownership": {"mode": "adopted"},
                    "sink": {"connector": "debezium-jdbc-sink", "config": config},
                }
            ],
        }
    }


@pytest.fixture(params=["local", "postgres_v2"])
def state_settings(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    if request.param == "local":
        return {"backend": "local", "lock_timeout_seconds": 2}
    dsn = request.getfixturevalue("postgres_dsn")
    writer = request.getfixturevalue("postgres_writer_dsn")
    monkeypatch.setenv(OWNER_ENV, dsn)
    monkeypatch.setenv(WRITER_ENV, writer)
    monkeypatch.setenv(ROLE_ENV, writer.split("//", 1)[1].split(":", 1)[0])
    schema = "st_" + uuid.uuid4().hex[:12]
    request.addfinalizer(lambda: _drop_schema(dsn, schema))
    postgres = {"dsn_env": OWNER_ENV, "writer_dsn_env": WRITER_ENV, "writer_role_env": ROLE_ENV, "schema": schema}
    return {"backend": "postgres", "namespace": "e2e", "lock_timeout_seconds": 2, "postgres": postgres}


def _drop_schema(dsn: str, schema: str) -> None:
    connection = psycopg2.connect(dsn)
    connection.autocommit = True
    connection.cursor().execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    connection.close()


def prepare_state(streamt_cli: Any, path: Path, settings: dict[str, Any]) -> None:
    if settings["backend"] != "postgres":
        return
    created = streamt_cli(
        "state",
        "init",
        "-p",
        path,
        "--confirm-project",
        "adoptc",
        "--confirm-env",
        "default",
        "--confirm-address",
        "streamt-state://e2e/adoptc/default",
    )
    assert created.ok, created.envelope
    role = settings["postgres"]["writer_role_env"]
    migrated = streamt_cli(
        "state",
        "migrate-postgres-v2",
        "-p",
        path,
        "--confirm-store-id",
        created.data["store_id"],
        "--confirm-writer-role",
        os.environ[role],
    )
    assert migrated.ok, migrated.envelope


def test_adopting_a_running_jdbc_sink_reads_it_exactly_twice_and_records_the_claim(
    recording_proxy: Any,
    tmp_path: Path,
    streamt_cli: Any,
    live_connector: dict[str, Any],
    connect_url: str,
    kafka_bootstrap: str,
    state_settings: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from streamt_testing import write_project

    monkeypatch.setenv(PASSWORD_VAR, "owner-pw")
    name = live_connector["name"]
    with recording_proxy(connect_url) as proxy:
        path = tmp_path / "p"
        write_project(path, project_files(live_connector, proxy.url, kafka_bootstrap, state_settings))
        prepare_state(streamt_cli, path, state_settings)
        resource = f"streamt://adoptc/default/connector/{name}"
        confirm = ("--confirm-resource", resource, "--confirm-env", "default")
        adopted = streamt_cli("adopt", "-p", path, "--kind", "connector", "--name", name, *confirm)
        assert adopted.ok, adopted.envelope
        assert proxy.calls == [("GET", f"/connectors/{name}"), ("GET", f"/connectors/{name}")]
        assert adopted.data["adopted"] is True and adopted.data["pending_changes"] == []
        review = adopted.data["live"]
        assert review["connector.class"] == JDBC_SINK and review["differing_keys"] == []
        assert review["secret_keys"] == {"connection.password": "equal"}
        shown = adopted.stdout
        assert "owner-pw" not in shown and live_connector["address"] not in shown
        if state_settings["backend"] == "local":
            # The claim carries what a later reviewed removal must find live (a digest, no value).
            (record,) = json.loads((path / ".streamt" / "state" / "default.json").read_text())["resources"]
            assert record["attributes"]["config_fingerprint"].startswith("sha256:")
            assert "owner-pw" not in json.dumps(record)

        # Adopted means managed from now on: the next plan compares and changes nothing.
        proxy.calls.clear()
        replan = streamt_cli("plan", "-p", path)
        assert replan.ok, replan.envelope
        assert [(a["kind"], a["action"]) for a in replan.data["actions"]] == [("topic", "noop"), ("connector", "noop")]

        again = streamt_cli("adopt", "-p", path, "--kind", "connector", "--name", name, *confirm)
        assert again.ok and again.data["adopted"] is False and again.data["state_changed"] is False


def test_a_connector_that_changes_between_review_and_confirmation_is_not_adopted(
    recording_proxy: Any,
    tmp_path: Path,
    streamt_cli: Any,
    live_connector: dict[str, Any],
    connect_url: str,
    kafka_bootstrap: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from streamt_testing import write_project

    monkeypatch.setenv(PASSWORD_VAR, "owner-pw")
    name = live_connector["name"]
    reads = []

    def second_read_differs(method: str, path: str, status: int, body: bytes) -> tuple[int, bytes]:
        reads.append(path)
        if len(reads) == 2:
            payload = json.loads(body)
            payload["config"]["batch.size"] = "7"  # someone edited it by hand meanwhile
            return status, json.dumps(payload).encode()
        return status, body

    with recording_proxy(connect_url) as proxy:
        proxy.rewrite = second_read_differs
        path = tmp_path / "p"
        write_project(path, project_files(live_connector, proxy.url, kafka_bootstrap, {"backend": "local"}))
        resource = f"streamt://adoptc/default/connector/{name}"
        confirm = ("--confirm-resource", resource, "--confirm-env", "default")
        refused = streamt_cli("adopt", "-p", path, "--kind", "connector", "--name", name, *confirm)
    assert refused.error_codes == ["E416_ADOPTION_FAILED"]
    assert not (path / ".streamt" / "state" / "default.json").exists()


def test_a_missing_connector_is_e413_and_a_managed_one_e412(
    tmp_path: Path, streamt_cli: Any, connect_url: str, kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamt_testing import write_project

    monkeypatch.setenv(PASSWORD_VAR, "x")
    ghost = {
        "name": f"ghost_{uuid.uuid4().hex[:8]}",
        "topic": "e2e-ghost.rows",
        "config": {"connection.url": "jdbc:postgresql://127.0.0.1:9/none"},
    }
    path = tmp_path / "p"
    write_project(path, project_files(ghost, connect_url, kafka_bootstrap, {"backend": "local"}))
    resource = f"streamt://adoptc/default/connector/{ghost['name']}"
    confirm = ("--confirm-resource", resource, "--confirm-env", "default")
    absent = streamt_cli("adopt", "-p", path, "--kind", "connector", "--name", ghost["name"], *confirm)
    assert absent.error_codes == ["E413_ADOPTION_LIVE_NOT_FOUND"]
    files = project_files(ghost, connect_url, kafka_bootstrap, {"backend": "local"})
    files["stream_project.yml"]["models"][0]["ownership"] = {"mode": "managed"}
    write_project(path, files)
    managed = streamt_cli("adopt", "-p", path, "--kind", "connector", "--name", ghost["name"], *confirm)
    assert managed.error_codes == ["E412_ADOPTION_TARGET_INVALID"]


@pytest.mark.parametrize("resolution", ["observed", "rolled_back"])
def test_an_adoption_killed_after_its_intent_is_recovered_by_review(
    tmp_path: Path,
    streamt_cli: Any,
    streamt_process: Any,
    live_connector: dict[str, Any],
    connect_url: str,
    kafka_bootstrap: str,
    monkeypatch: pytest.MonkeyPatch,
    resolution: str,
) -> None:
    from streamt_testing import write_project

    monkeypatch.setenv(PASSWORD_VAR, "owner-pw")
    name = live_connector["name"]
    path = tmp_path / "p"
    write_project(path, project_files(live_connector, connect_url, kafka_bootstrap, {"backend": "local"}))
    resource = f"streamt://adoptc/default/connector/{name}"
    confirm = ("--confirm-resource", resource, "--confirm-env", "default")
    args = ("adopt", "-p", path, "--kind", "connector", "--name", name, *confirm)
    killed = streamt_process(*args, env={"STREAMT_TEST_KILL_AT_BOUNDARY": "1"})  # after the durable intent
    assert killed.returncode == -9
    assert streamt_cli(*args).error_codes == ["E419_STATE_RECOVERY_REQUIRED"]

    plan_file = tmp_path / "recovery.json"
    planned = streamt_cli("state", "recovery-plan", "-p", path, "--resolution", resolution, "--out", plan_file)
    assert planned.ok, planned.envelope
    recovered = streamt_cli(
        "state", "recover", "-p", path, "--plan", plan_file,
        "--confirm-operation-id", planned.data["blocked_operation_id"],
        "--confirm-resolution", planned.data["resolution"],
        "--confirm-evidence-checksum", planned.data["evidence_checksum"],
    )  # fmt: skip
    assert recovered.ok, recovered.envelope
    state = json.loads((path / ".streamt" / "state" / "default.json").read_text()) if resolution == "observed" else None
    if state is not None:
        assert [r["resource_id"] for r in state["resources"]] == [resource]
        assert state["resources"][0]["ownership"] == "adopted"
    again = streamt_cli(*args)
    assert again.ok, again.envelope
    # Recovered as observed, the claim is held; rolled back, it is made now.
    assert again.data["adopted"] is (resolution == "rolled_back")
    assert requests.get(f"{connect_url}/connectors/{name}/status", timeout=10).json()["connector"]["state"] == "RUNNING"
