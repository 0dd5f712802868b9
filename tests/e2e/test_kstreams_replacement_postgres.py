"""The coupled PostgreSQL acceptance of a reviewed runner replacement (fresh topology).

A fresh schema in the devstack server, with its separate owner and writer roles; `state init` and
`state migrate-postgres-v2` through the public CLI; a reviewed create; a predicate edit; format 6;
`apply --plan` loses the answer after the real candidate create; a fresh process reacquires the
advisory lock and diagnoses without DML, `state resume` finishes and commits atomically, and a
completed-resume retry writes nothing.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg2
import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
import test_kstreams_replacement as replacement
import test_kstreams_runner as runner
from test_kstreams_runner import EXPECTED, consume, ok, produce, runners, starter, streamt

pytestmark = [pytest.mark.kafka, pytest.mark.docker, pytest.mark.postgres]

engine, env, runner_image, cleanup = runner.engine, replacement.env, runner.runner_image, runner.cleanup
OWNER_ENV, WRITER_ENV, ROLE_ENV = "E2E_KS_PG_OWNER", "E2E_KS_PG_WRITER", "E2E_KS_PG_ROLE"


@pytest.fixture
def schema(postgres_dsn: str) -> Iterator[str]:
    name = "ks_" + uuid.uuid4().hex[:12]
    yield name
    connection = psycopg2.connect(postgres_dsn)
    connection.autocommit = True
    connection.cursor().execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
    connection.close()


def rows(dsn: str, query: str) -> list[tuple[Any, ...]]:
    connection = psycopg2.connect(dsn)
    try:
        with connection.cursor() as cur:
            cur.execute(query)
            return list(cur.fetchall())
    finally:
        connection.close()


def test_replacement_on_postgres_v2_resumes_after_a_lost_create_answer(
    tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup, postgres_dsn, postgres_writer_dsn, schema
):
    role = postgres_writer_dsn.split("//", 1)[1].split(":", 1)[0]
    pg_env = {**env, OWNER_ENV: postgres_dsn, WRITER_ENV: postgres_writer_dsn, ROLE_ENV: role}
    root, name = starter(tmp_path, runner_image, pg_env, cleanup)
    project = yaml.safe_load((root / "stream_project.yml").read_text())
    postgres = {"dsn_env": OWNER_ENV, "writer_dsn_env": WRITER_ENV, "writer_role_env": ROLE_ENV, "schema": schema}
    project["deployment_state"] = {"backend": "postgres", "namespace": "e2e", "postgres": postgres}
    (root / "stream_project.yml").write_text(yaml.safe_dump(project, sort_keys=False))
    created = ok(
        streamt(
            "state", "init", "-p", root, "--confirm-project", name, "--confirm-env", "default",
            "--confirm-address", f"streamt-state://e2e/{name}/default", env=pg_env,
        )
    )  # fmt: skip
    migrated = ok(
        streamt(
            "state", "migrate-postgres-v2", "-p", root, "--confirm-store-id", created["store_id"],
            "--confirm-writer-role", role, env=pg_env,
        )
    )  # fmt: skip
    assert migrated["schema_version"] == 2

    create_plan = tmp_path / "create.json"
    ok(streamt("plan", "-p", root, "--out", create_plan, env=pg_env))
    ok(streamt("apply", "-p", root, "--plan", create_plan, env=pg_env))  # the reviewed create
    raw, app_id = f"{name}.orders.raw.v1", f"streamt-{name}-default-eligible_orders"
    produce(kafka_bootstrap, raw, (root / "samples" / "orders.jsonl").read_bytes().splitlines())
    assert [v for _, v in consume(kafka_bootstrap, f"{name}.orders.eligible.v1", 2)] == EXPECTED
    assert replacement.wait_committed(kafka_bootstrap, app_id, raw, 4) == {0: 4}
    models = root / "models" / "orders.yml"
    models.write_text(models.read_text().replace("amount >= 100", "amount >= 300"))

    plan_file = tmp_path / "filter-change.json"
    assert ok(streamt("plan", "-p", root, "--out", plan_file, env=pg_env))["kafka_streams_replacement"]["saved"]
    serial = rows(postgres_dsn, f"SELECT serial FROM {schema}.ownership_state")[0][0]
    lost = streamt(
        "apply", "-p", root, "--plan", plan_file, env={**pg_env, "STREAMT_TEST_LOSE_ACK_AT": "candidate_created"}
    )
    data = json.loads(lost.stdout)["data"]
    assert data["committed"] is None and data["last_acknowledged_boundary"] == "old_stopped"
    ids = ["--plan", plan_file, "--operation-id", data["operation_id"]]

    history = f"SELECT count(*) FROM {schema}.operation_history"
    before = (rows(postgres_dsn, history), rows(postgres_dsn, f"SELECT checksum FROM {schema}.ownership_state"))
    status = ok(streamt("state", "runner-status", "-p", root, *ids, env=pg_env))
    assert (status["status"], status["next_step"]) == ("pending", "await_candidate")
    after = (rows(postgres_dsn, history), rows(postgres_dsn, f"SELECT checksum FROM {schema}.ownership_state"))
    assert after == before  # diagnosis under the advisory lock wrote nothing

    (candidate,) = [c for c in runners(engine, name) if c.name.endswith("-g2")]
    resumed = ok(streamt("state", "resume", "-p", root, *ids, env=pg_env))
    assert resumed["status"] == "completed" and resumed["candidate_container_id"] == candidate.id  # reused
    assert rows(postgres_dsn, f"SELECT serial FROM {schema}.ownership_state")[0][0] == serial + 1
    done = rows(postgres_dsn, history)
    again = ok(streamt("state", "resume", "-p", root, *ids, env=pg_env))
    assert again["read_only"] is True and rows(postgres_dsn, history) == done
    assert [c.id for c in runners(engine, name)] == [candidate.id]

    produce(kafka_bootstrap, raw, replacement.AFTER)
    out = [v for _, v in consume(kafka_bootstrap, f"{name}.orders.eligible.v1", 3)]
    assert out == [*EXPECTED, {"id": "o-6", "amount": 400}]
    assert replacement.wait_committed(kafka_bootstrap, app_id, raw, 6) == {0: 6}
    final = ok(streamt("plan", "-p", root, env=pg_env))
    assert final["counts"]["noop"] == len(final["actions"])
