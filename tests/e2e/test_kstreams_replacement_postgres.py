"""The coupled PostgreSQL acceptance of a reviewed runner replacement (fresh topology).

Per case, a disposable database with its own owner and writer roles (created and dropped
through the devstack's superuser login, never the devstack's roles); `state init` and
`state migrate-postgres-v2` through the public CLI; a reviewed create; a predicate edit; format 6;
`apply --plan` interrupted after the real candidate create — its answer lost, or the CLI SIGKILLed
right after journaling it; a fresh process reacquires the advisory lock and diagnoses without DML
(generic recovery is refused without DML too), `state resume` finishes and commits atomically, and
a completed-resume retry writes nothing. Everything the test created is dropped afterwards.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import psycopg2
import pytest
import yaml

sys.path.insert(0, str(Path(__file__).parent))
import test_kstreams_replacement as replacement
import test_kstreams_runner as runner
from test_kstreams_runner import EXPECTED, ok, processed, produce, runners, starter, streamt, wait_committed

pytestmark = [pytest.mark.kafka, pytest.mark.docker, pytest.mark.postgres]

engine, env = runner.engine, replacement.env
OWNER_ENV, WRITER_ENV, ROLE_ENV = "E2E_KS_PG_OWNER", "E2E_KS_PG_WRITER", "E2E_KS_PG_ROLE"
SCHEMA = "streamt_state"
LOSE, KILL = "STREAMT_TEST_LOSE_ACK_AT", "STREAMT_TEST_KILL_AT_BOUNDARY"


def superuser(dsn: str, *statements: str) -> None:
    connection = psycopg2.connect(dsn)
    connection.autocommit = True  # CREATE/DROP DATABASE cannot run inside a transaction
    try:
        with connection.cursor() as cur:
            for statement in statements:
                cur.execute(statement)
    finally:
        connection.close()


@contextlib.contextmanager
def fresh_database(superuser_dsn: str) -> Iterator[dict[str, str]]:
    """A fresh database owned by a fresh owner role, plus a fresh writer role; all dropped afterwards.

    Yields the owner DSN, the writer DSN and the writer role name. The roles get random passwords
    and no other privilege: `state init` / `migrate-postgres-v2` grant what the writer needs.
    """
    tag = uuid.uuid4().hex[:10]
    name, owner, writer = f"ks_pg_{tag}", f"ks_pg_{tag}_owner", f"ks_pg_{tag}_writer"
    owner_pw, writer_pw = secrets.token_hex(12), secrets.token_hex(12)
    where = superuser_dsn.rsplit("@", 1)[1].rsplit("/", 1)[0]
    superuser(
        superuser_dsn,
        f"CREATE ROLE {owner} LOGIN PASSWORD '{owner_pw}'",
        f"CREATE ROLE {writer} LOGIN PASSWORD '{writer_pw}'",
        f"CREATE DATABASE {name} OWNER {owner}",
    )
    try:
        yield {
            "owner_dsn": f"postgresql://{owner}:{owner_pw}@{where}/{name}",
            "writer_dsn": f"postgresql://{writer}:{writer_pw}@{where}/{name}",
            "writer_role": writer,
        }
    finally:
        superuser(
            superuser_dsn,
            f"DROP DATABASE IF EXISTS {name} WITH (FORCE)",
            f"DROP ROLE IF EXISTS {writer}",
            f"DROP ROLE IF EXISTS {owner}",
        )


def rows(dsn: str, query: str) -> list[tuple[Any, ...]]:
    connection = psycopg2.connect(dsn)
    try:
        with connection.cursor() as cur:
            cur.execute(query)
            return list(cur.fetchall())
    finally:
        connection.close()


def catalog(dsn: str) -> list[list[tuple[Any, ...]]]:
    """Every row of the state catalog the writer may change (control, history, state), as stored."""
    tables = ("operation_control", "operation_history", "ownership_history", "ownership_state")
    return [rows(dsn, f"SELECT * FROM {SCHEMA}.{table} ORDER BY 1, 2") for table in tables]


FAULTS = [
    pytest.param({LOSE: "candidate_created"}, "old_stopped", id="lost-after-create"),
    pytest.param({KILL: "3"}, "candidate_created", id="sigkill-after-create"),
]


@attrs.frozen
class Reviewed:
    """A created, fed runner on its own PostgreSQL v2 state, its predicate edited and reviewed."""

    root: Path
    name: str
    app_id: str
    plan_file: Path
    pg_env: dict[str, str]
    owner_dsn: str


def reviewed_on_postgres(folder: Path, database: dict[str, str], env, image, bootstrap, projects) -> Reviewed:
    """`state init`, `migrate-postgres-v2`, the reviewed create, records, the predicate edit and its `plan --out`."""
    owner_dsn, role = database["owner_dsn"], database["writer_role"]
    pg_env = {**env, OWNER_ENV: owner_dsn, WRITER_ENV: database["writer_dsn"], ROLE_ENV: role}
    root, name = starter(folder, image, pg_env, projects)
    project = yaml.safe_load((root / "stream_project.yml").read_text())
    postgres = {"dsn_env": OWNER_ENV, "writer_dsn_env": WRITER_ENV, "writer_role_env": ROLE_ENV, "schema": SCHEMA}
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

    create_plan = folder / "create.json"
    ok(streamt("plan", "-p", root, "--out", create_plan, env=pg_env))
    ok(streamt("apply", "-p", root, "--plan", create_plan, env=pg_env))  # the reviewed create
    raw, app_id = f"{name}.orders.raw.v1", f"streamt-{name}-default-eligible_orders"
    produce(bootstrap, raw, (root / "samples" / "orders.jsonl").read_bytes().splitlines())
    assert [v for _, v in processed(bootstrap, app_id, raw, 4, f"{name}.orders.eligible.v1")] == EXPECTED
    assert wait_committed(bootstrap, app_id, raw, 4) == {0: 4}
    models = root / "models" / "orders.yml"
    models.write_text(models.read_text().replace("amount >= 100", "amount >= 300"))

    plan_file = folder / "filter-change.json"
    assert ok(streamt("plan", "-p", root, "--out", plan_file, env=pg_env))["kafka_streams_replacement"]["saved"]
    return Reviewed(root, name, app_id, plan_file, pg_env, owner_dsn)


@pytest.fixture(scope="module")
def reviewed(
    request, tmp_path_factory, postgres_superuser_dsn, kstreams_engine, env, kstreams_runner_image, kafka_bootstrap
) -> Iterator[dict[str, Reviewed]]:
    """``{fault case: Reviewed}`` for the selected tests, prepared side by side before the first one.

    Each case has its own database, roles, project, topics, container and volume; everything is
    dropped or removed after the module.
    """
    selected = {item.callspec.id for item in request.session.items if item.path == request.path}
    wanted = [case.id for case in FAULTS if case.id in selected]
    projects: list[str] = []
    with contextlib.ExitStack() as stack:
        stack.callback(runner.remove_projects, kstreams_engine, kafka_bootstrap, projects)
        databases = [stack.enter_context(fresh_database(postgres_superuser_dsn)) for _ in wanted]

        def prepare(case: str, database: dict[str, str]) -> Reviewed:
            folder = tmp_path_factory.mktemp(case)
            return reviewed_on_postgres(folder, database, env, kstreams_runner_image, kafka_bootstrap, projects)

        with ThreadPoolExecutor(max_workers=2) as pool:
            prepared = dict(zip(wanted, pool.map(prepare, wanted, databases), strict=True))
        yield prepared


@pytest.mark.parametrize(("fault", "phase"), FAULTS)
def test_replacement_on_postgres_v2_resumes_after_an_interrupted_create(
    request, tmp_path, engine, reviewed, kafka_bootstrap, fault: dict[str, str], phase: str
):
    case = reviewed[request.node.callspec.id]
    root, name, app_id, plan_file = case.root, case.name, case.app_id, case.plan_file
    pg_env, owner_dsn, raw = case.pg_env, case.owner_dsn, f"{case.name}.orders.raw.v1"
    serial = rows(owner_dsn, f"SELECT serial FROM {SCHEMA}.ownership_state")[0][0]
    interrupted = streamt("apply", "-p", root, "--plan", plan_file, env={**pg_env, **fault})
    if KILL in fault:  # its session died with it: the advisory lock is free, the journal stays
        assert interrupted.returncode == -9
        operation_id = ok(streamt("state", "status", "-p", root, env=pg_env))["operation_status"]["operation_id"]
    else:
        data = json.loads(interrupted.stdout)["data"]
        assert data["committed"] is None and data["last_acknowledged_boundary"] == phase
        operation_id = data["operation_id"]
    ids = ["--plan", plan_file, "--operation-id", operation_id]
    (candidate,) = [c for c in runners(engine, name) if c.name.endswith("-g2")]  # the real create happened

    before = catalog(owner_dsn)
    status = ok(streamt("state", "runner-status", "-p", root, *ids, env=pg_env))
    assert (status["status"], status["lifecycle_phase"], status["next_step"]) == ("pending", phase, "await_candidate")
    generic = streamt(
        "state", "recovery-plan", "-p", root, "--resolution", "observed", "--out", tmp_path / "r.json", env=pg_env
    )
    assert replacement.errors(generic) == ["E419_STATE_RECOVERY_REQUIRED"] and not (tmp_path / "r.json").exists()
    assert catalog(owner_dsn) == before  # diagnosis and the refused recovery under the advisory lock: no DML

    resumed = ok(streamt("state", "resume", "-p", root, *ids, env=pg_env))
    assert resumed["status"] == "completed" and resumed["candidate_container_id"] == candidate.id  # reused
    assert rows(owner_dsn, f"SELECT serial FROM {SCHEMA}.ownership_state")[0][0] == serial + 1
    events = [e for (e,) in rows(owner_dsn, f"SELECT event FROM {SCHEMA}.operation_history ORDER BY seq")]
    assert events[-2:] == ["committed", "kafka_streams_replacement_receipt"] and "begun" in events  # history kept
    done = catalog(owner_dsn)
    again = ok(streamt("state", "resume", "-p", root, *ids, env=pg_env))
    assert again["read_only"] is True and catalog(owner_dsn) == done
    assert [c.id for c in runners(engine, name)] == [candidate.id]

    produce(kafka_bootstrap, raw, replacement.AFTER)
    out = [v for _, v in processed(kafka_bootstrap, app_id, raw, 6, f"{name}.orders.eligible.v1")]
    assert out == [*EXPECTED, {"id": "o-6", "amount": 400}]
    assert wait_committed(kafka_bootstrap, app_id, raw, 6) == {0: 6}
    final = ok(streamt("plan", "-p", root, env=pg_env))
    assert final["counts"]["noop"] == len(final["actions"])
