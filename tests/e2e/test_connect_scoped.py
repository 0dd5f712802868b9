"""Many projects on one stack: project-scoped connector names, on the real Connect worker running
Debezium's JDBC sink into the real PostgreSQL, beside the Gateway stub and Kafka.

Two projects with identical model names (a topic, a JDBC sink, a virtual topic) apply, plan no-op
and remove independently: their connectors are ``<project>.<env>.<model>``, each config carrying
its ``streamt.owner`` marker; topics and aliases are what clients read, so each project names its
own (as one does with a per-environment prefix). A connector deployed under its model name before
scoped names is recognised through its ownership record and renamed by a reviewed apply, its
consumer offsets carried over: the rows it had written are not written again.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

psycopg2 = pytest.importorskip("psycopg2")
requests = pytest.importorskip("requests")
# --import-mode=importlib does not put this folder on sys.path; the shared reader is a sibling.
sys.path.insert(0, str(Path(__file__).parent))
from connect_reads import stored_config  # noqa: E402

pytestmark = [pytest.mark.kafka, pytest.mark.connect, pytest.mark.postgres, pytest.mark.gateway]

OWNER_ENV, WRITER_ENV, ROLE_ENV = "E2E_SC_PG_OWNER", "E2E_SC_PG_WRITER", "E2E_SC_PG_ROLE"
PASSWORD_VAR = "E2E_SC_JDBC_PASSWORD"
SCHEMA = {"type": "struct", "fields": [{"type": "string", "field": "id", "optional": False}]}


@attrs.define
class Project:
    path: Path
    name: str
    topic: str
    alias: str
    rows: str  # the PostgreSQL schema the sink writes to
    state: str  # the PostgreSQL schema of its ownership state
    files: dict[str, Any]
    connectors: list[str] = attrs.field(factory=list)  # every name its sink may have on the worker (cleanup)

    def write(self) -> None:
        from streamt_testing import write_project

        write_project(self.path, self.files)

    @property
    def connector(self) -> str:
        return f"{self.name}.default.orders_to_db"


@pytest.fixture
def make_project(
    tmp_path: Path,
    streamt_cli: Any,
    kafka_bootstrap: str,
    connect_url: str,
    gateway_url: str,
    gateway_credentials: tuple[str, str],
    postgres_dsn: str,
    postgres_writer_dsn: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Callable[..., Project]]:
    from kafka import KafkaAdminClient

    monkeypatch.setenv(OWNER_ENV, postgres_dsn)
    monkeypatch.setenv(WRITER_ENV, postgres_writer_dsn)
    monkeypatch.setenv(ROLE_ENV, postgres_writer_dsn.split("//", 1)[1].split(":", 1)[0])
    monkeypatch.setenv(PASSWORD_VAR, "owner-pw")
    address = postgres_dsn.split("@", 1)[1].split("/", 1)[0]
    owner = psycopg2.connect(postgres_dsn)
    owner.autocommit = True
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    user, password = gateway_credentials
    made: list[Project] = []

    def make(sink_model: str = "orders_to_db", alias: str | None = None) -> Project:
        suffix = uuid.uuid4().hex[:10]
        name, topic = f"sc_{suffix}", f"e2e-{suffix}.orders"
        alias = alias or f"e2e-{suffix}.orders.view"
        rows, state = f"rows_{suffix}", f"st_{suffix}"
        owner.cursor().execute(f"CREATE SCHEMA {rows}")
        files = {
            "stream_project.yml": {
                "apiVersion": "streamt.dev/v1alpha1",
                "project": {"name": name},
                "runtime": {
                    "kafka": {"bootstrap_servers": kafka_bootstrap},
                    "connect": {"default": "main", "clusters": {"main": {"rest_url": connect_url}}},
                    "conduktor": {"gateway": {"admin_url": gateway_url, "username": user, "password": password}},
                },
                "deployment_state": {
                    "backend": "postgres",
                    "namespace": "e2e",
                    "lock_timeout_seconds": 5,
                    "postgres": {
                        "dsn_env": OWNER_ENV,
                        "writer_dsn_env": WRITER_ENV,
                        "writer_role_env": ROLE_ENV,
                        "schema": state,
                    },
                },
                "models": [
                    {"name": "orders", "topic": {"name": topic, "partitions": 1, "replication_factor": 1}},
                    {
                        "name": sink_model,
                        "from": [{"ref": "orders"}],
                        "sink": {
                            "connector": "debezium-jdbc-sink",
                            "config": {
                                "connection.url": f"jdbc:postgresql://{address}/streamt",
                                "connection.username": "streamt_owner",
                                "connection.password": "${" + PASSWORD_VAR + "}",
                                "collection.name.format": f"{rows}.rows",
                                "schema.evolution": "basic",
                            },
                        },
                    },
                    {
                        "name": "orders_view",
                        "sql": "SELECT * FROM {{ ref('orders') }} WHERE id = 'r0'",
                        "gateway": {"virtual_topic": {"name": alias}},
                    },
                ],
            }
        }
        project = Project(tmp_path / name, name, topic, alias, rows, state, files)
        project.connectors.append(f"{name}.default.{sink_model}")
        project.write()
        made.append(project)
        init = streamt_cli(
            "state", "init", "-p", project.path, "--confirm-project", name, "--confirm-env", "default",
            "--confirm-address", f"streamt-state://e2e/{name}/default",
        )  # fmt: skip
        assert init.ok, init.envelope
        migrated = streamt_cli(
            "state", "migrate-postgres-v2", "-p", project.path, "--confirm-store-id", init.data["store_id"],
            "--confirm-writer-role", os.environ[ROLE_ENV],
        )  # fmt: skip
        assert migrated.ok, migrated.envelope
        return project

    try:
        yield make
    finally:
        for project in made:
            for connector in project.connectors:
                requests.delete(f"{connect_url}/connectors/{connector}", timeout=30)
            scope, alias = {"vCluster": "passthrough"}, {"name": project.alias, "vCluster": "passthrough"}
            interceptor = f"{gateway_url}/gateway/v2/interceptor/{project.alias}--streamt-filter"
            requests.delete(interceptor, json=scope, auth=gateway_credentials, timeout=10)
            requests.delete(f"{gateway_url}/gateway/v2/alias-topic", json=alias, auth=gateway_credentials, timeout=10)
            for schema in (project.rows, project.state):
                owner.cursor().execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        admin.delete_topics([p.topic for p in made if p.topic in admin.list_topics()])
        admin.close()
        owner.close()


def produce(bootstrap: str, topic: str, ids: list[str]) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for row in ids:
        producer.send(topic, json.dumps({"schema": SCHEMA, "payload": {"id": row}}).encode())
    producer.flush()
    producer.close()


def rows(dsn: str, schema: str, want: int, settle: float = 0.0) -> list[str]:
    """The ids in ``<schema>.rows`` once there are ``want`` of them (or after 120 s), ``settle`` s later."""
    connection = psycopg2.connect(dsn)
    try:
        deadline, found = time.monotonic() + 120, []
        while time.monotonic() < deadline and len(found) < want:
            time.sleep(1)
            try:
                with connection.cursor() as cursor:
                    cursor.execute(f"SELECT id FROM {schema}.rows ORDER BY id")
                    found = [r[0] for r in cursor.fetchall()]
            except psycopg2.Error:
                connection.rollback()
        if settle:
            time.sleep(settle)
            with connection.cursor() as cursor:
                cursor.execute(f"SELECT id FROM {schema}.rows ORDER BY id")
                found = [r[0] for r in cursor.fetchall()]
        return found
    finally:
        connection.close()


def mutations(plan: Any) -> list[Any]:
    return [a for a in plan.data["actions"] if a["action"] != "noop"]


def test_two_projects_with_the_same_model_names_apply_plan_and_remove_independently(
    make_project: Any,
    streamt_cli: Any,
    connect_url: str,
    gateway_url: str,
    gateway_credentials: tuple[str, str],
    kafka_bootstrap: str,
    postgres_dsn: str,
    tmp_path: Path,
) -> None:
    alpha, beta = make_project(), make_project()
    for project in (alpha, beta):
        applied = streamt_cli("apply", "-p", project.path)
        assert applied.ok, applied.envelope
        assert applied.action_results[project.connector] == "created"
        config = stored_config(connect_url, project.connector)
        assert config is not None and config["streamt.owner"] == f"{project.name}/default"
        produce(kafka_bootstrap, project.topic, ["r0", "r1"])
    # The real Debezium JDBC sink runs with the owner marker in its config: the rows reach PostgreSQL.
    for project in (alpha, beta):
        assert rows(postgres_dsn, project.rows, 2) == ["r0", "r1"]
        again = streamt_cli("plan", "-p", project.path)
        assert again.ok and not mutations(again), again.envelope

    # beta removes its sink and its rule; alpha's are untouched, and alpha still plans a no-op.
    compiled = {a["kind"]: a for a in again.data["actions"]}  # beta's plan
    assert compiled["connector"]["identity"] == beta.connector
    from streamt.compile import load_and_compile

    (rule,) = [a for a in load_and_compile(beta.path, None).compiled.artifacts if a.kind == "gateway_rule"]
    project_file = beta.files["stream_project.yml"]
    project_file["models"] = project_file["models"][:1]
    project_file["lifecycle"] = {
        "connector_removals": [{"logical_owner": "orders_to_db", "name": beta.connector, "cluster": "main"}],
        "gateway_rule_removals": [{"logical_owner": "orders_view", "prior_artifact": rule.spec}],
    }
    beta.write()
    plan_file = tmp_path / "beta-removal.plan.json"
    planned = streamt_cli("plan", "-p", beta.path, "--out", plan_file)
    assert planned.ok, planned.envelope
    assert sorted(a["kind"] for a in planned.data["actions"] if a["action"] == "delete") == [
        "connector_removal",
        "gateway_rule_removal",
    ]
    removed = streamt_cli("apply", "-p", beta.path, "--plan", plan_file, "--force")
    assert removed.ok, removed.envelope
    assert stored_config(connect_url, beta.connector) is None
    assert stored_config(connect_url, alpha.connector) is not None
    aliases = requests.get(f"{gateway_url}/gateway/v2/alias-topic", auth=gateway_credentials, timeout=10).json()
    names = {a["metadata"]["name"] for a in aliases}
    assert alpha.alias in names and beta.alias not in names
    still = streamt_cli("plan", "-p", alpha.path)
    assert still.ok and not mutations(still), still.envelope


def test_an_alias_another_project_made_is_refused_naming_that_project(
    make_project: Any, streamt_cli: Any, gateway_url: str, gateway_credentials: tuple[str, str]
) -> None:
    alpha = make_project()
    applied = streamt_cli("apply", "-p", alpha.path)
    assert applied.ok, applied.envelope
    # Aliases are not scoped (clients read them by name): the second project's rule collides, and
    # the owner marker alpha's filter interceptor carries in its comment says whose it is.
    gamma = make_project(alias=alpha.alias)
    refused = streamt_cli("apply", "-p", gamma.path)
    assert refused.error_codes == ["E410_OWNERSHIP_REQUIRED"], refused.envelope
    (error,) = refused.envelope["errors"]
    assert f"created by streamt project '{alpha.name}', environment 'default'" in error["message"]
    assert "remove the resource from that project first" in error["suggestion"]
    interceptors = requests.get(f"{gateway_url}/gateway/v2/interceptor", auth=gateway_credentials, timeout=10).json()
    (comment,) = [
        i["spec"]["comment"] for i in interceptors if i["metadata"]["name"] == f"{alpha.alias}--streamt-filter"
    ]
    assert comment == f"managed by streamt (owner: {alpha.name}/default)"
    still = streamt_cli("plan", "-p", alpha.path)
    assert still.ok and not mutations(still), still.envelope


def test_an_owned_legacy_connector_is_renamed_by_a_reviewed_apply_without_rereading_its_topic(
    make_project: Any,
    streamt_cli: Any,
    connect_url: str,
    kafka_bootstrap: str,
    postgres_dsn: str,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from streamt_connect import compiler

    legacy = f"legacy_{uuid.uuid4().hex[:10]}"
    project = make_project(sink_model=legacy)
    project.connectors.append(legacy)  # unique: never another test's connector
    scoped = f"{project.name}.default.{legacy}"
    with monkeypatch.context() as before:  # the compiler as it was before scoped names
        before.setattr(compiler, "connector_name", lambda _project, model: model.name)
        before.setattr(compiler, "owner_marker", lambda *_: None)
        first = streamt_cli("apply", "-p", project.path)
        assert first.ok, first.envelope
    assert stored_config(connect_url, legacy) is not None
    produce(kafka_bootstrap, project.topic, ["r0", "r1"])
    assert rows(postgres_dsn, project.rows, 2) == ["r0", "r1"]

    direct = streamt_cli("apply", "-p", project.path)
    assert direct.error_codes == ["E418_REVIEWED_PLAN_REQUIRED"], direct.envelope
    plan_file = tmp_path / "rename.plan.json"
    planned = streamt_cli("plan", "-p", project.path, "--out", plan_file)
    assert planned.ok, planned.envelope
    (rename,) = [a for a in planned.data["actions"] if a["kind"] == "connector"]
    assert (rename["action"], rename["identity"]) == ("update", scoped)
    assert rename["summary"] == f"rename {legacy} → {scoped} (consumer offsets carried over)"
    renamed = streamt_cli("apply", "-p", project.path, "--plan", plan_file)
    assert renamed.ok, renamed.envelope
    assert stored_config(connect_url, legacy) is None
    config = stored_config(connect_url, scoped)
    assert config is not None and config["streamt.owner"] == f"{project.name}/default"

    # The renamed connector goes on from the old one's offsets: one new row, and r0/r1 not again.
    produce(kafka_bootstrap, project.topic, ["r2"])
    assert rows(postgres_dsn, project.rows, 3, settle=5) == ["r0", "r1", "r2"]
    after = streamt_cli("plan", "-p", project.path)
    assert after.ok and not mutations(after), after.envelope
