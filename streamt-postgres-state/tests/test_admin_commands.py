"""state init / migrate-postgres-v2 / lock-status against the devstack PostgreSQL 15."""

from __future__ import annotations

import pytest
from streamt.project import load_project
from streamt.state.selection import open_state_backend

pytestmark = pytest.mark.postgres

SEED_LOCK_FIELDS = {"backend", "store_id", "address", "lock_status", "reservation", "ordinary_state_authority"}
SEED_MIGRATE_FIELDS = {
    "backend",
    "outcome",
    "store_id",
    "schema_version",
    "ordinary_state_authority",
    "mutation_status",
}


def _migrate(cli, project, store_id, role, *extra, **kwargs):
    return cli("state", "migrate-postgres-v2", "-p", project, *extra, "--confirm-store-id", store_id,
               "--confirm-writer-role", role, **kwargs)  # fmt: skip


def test_init_registers_a_second_address_and_migrates(make_project, streamt_cli, init_args, writer_role, schema):
    project = make_project(envs=("dev", "prod"))
    first = streamt_cli(*init_args(project, "dev"))
    assert first.ok, first.envelope
    assert first.data["outcome"] == "initialized"
    assert first.data["schema_version"] == 1
    assert first.data["ordinary_state_authority"] == "disabled"
    assert first.data["state_status"] == "absent"
    assert first.data["operation_status"]["status"] == "clear"

    again = streamt_cli(*init_args(project, "dev"))
    assert again.data["outcome"] == "already_initialized"
    assert again.data["store_id"] == first.data["store_id"]

    second = streamt_cli(*init_args(project, "prod"))
    assert second.data["outcome"] == "address_registered"
    assert second.data["address"] == "streamt-state://platform/payments/prod"
    assert second.data["store_id"] == first.data["store_id"]

    migrated = _migrate(streamt_cli, project, first.data["store_id"], writer_role, "--env", "prod")
    assert migrated.ok, migrated.envelope
    assert set(migrated.data) == SEED_MIGRATE_FIELDS
    assert migrated.data == {
        "backend": "postgres",
        "outcome": "migrated",
        "store_id": first.data["store_id"],
        "schema_version": 2,
        "ordinary_state_authority": "supported_for_v2_writer",
        "mutation_status": "catalog_ready",
    }
    retry = _migrate(streamt_cli, project, first.data["store_id"], writer_role, "--env", "dev")
    assert retry.data["outcome"] == "already_migrated"

    # A third address registered in the v2 store reports the v2 capability.
    project_v2 = make_project(envs=("qa",))
    third = streamt_cli(*init_args(project_v2, "qa"))
    assert third.data["outcome"] == "address_registered"
    assert third.data["ordinary_state_authority"] == "supported_for_v2_writer"

    status = open_state_backend(load_project(project, "prod"), project, "read").status()
    assert status["schema_version"] == 2
    assert status["state_status"] == "absent"
    assert status["mutation_status"] == "catalog_ready"
    assert status["ordinary_state_authority"] == "supported_for_v2_writer"
    assert schema not in repr(status)


def test_status_of_an_absent_schema_is_uninitialized_and_creates_nothing(make_project, owner_sql, schema):
    project = make_project()
    status = open_state_backend(load_project(project, None), project, "read").status()
    assert status["state_status"] == "uninitialized"
    assert status["store_id"] is None
    assert owner_sql("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)) == []


def test_unregistered_address_in_an_initialized_store(make_project, streamt_cli, init_args):
    project = make_project(envs=("dev", "prod"))
    assert streamt_cli(*init_args(project, "dev")).ok
    status = open_state_backend(load_project(project, "prod"), project, "read").status()
    assert status["state_status"] == "unregistered"
    probe = streamt_cli("state", "lock-status", "-p", project, "--env", "prod")
    assert probe.ok and probe.data["lock_status"] == "unregistered"


@pytest.mark.parametrize(
    "override",
    [
        ("--confirm-project", "other"),
        ("--confirm-env", "prod"),
        ("--confirm-address", "streamt-state://x/payments/default"),
    ],
)
def test_init_confirmation_mismatch_fails_before_any_connection(make_project, streamt_cli, init_args, override):
    project = make_project()
    args = init_args(project)
    args[args.index(override[0]) + 1] = override[1]
    # An unreachable DSN: if init connected, the answer would be E420, not E411.
    outcome = streamt_cli(*args, env={"STREAMT_TEST_PG_OWNER_DSN": "postgresql://nobody@127.0.0.1:1/none"})
    assert outcome.error_codes == ["E411_STATE_INVALID"]


def test_init_requires_all_three_confirmations(make_project, streamt_cli):
    project = make_project()
    outcome = streamt_cli("state", "init", "-p", project, "--confirm-project", "payments")
    assert outcome.error_codes == ["E411_STATE_INVALID"]


@pytest.mark.parametrize(
    ("store_id", "role"),
    [
        ("not-a-uuid", "writer"),
        ("8D04F3F7-0000-4000-8000-000000000000", "writer"),
        ("8d04f3f7-0000-4000-8000-000000000000", "r" * 64),
        ("8d04f3f7-0000-4000-8000-000000000000", "a\x00b"),
        ("8d04f3f7-0000-4000-8000-000000000000", ""),
    ],
)
def test_malformed_migration_confirmations_fail_before_project_parsing(streamt_cli, tmp_path, store_id, role):
    missing = tmp_path / "no-such-project"
    outcome = _migrate(streamt_cli, missing, store_id, role)
    assert outcome.error_codes == ["E411_STATE_INVALID"]


def test_migration_rejects_a_mismatched_store_or_role(make_project, streamt_cli, init_args, writer_role):
    project = make_project()
    created = streamt_cli(*init_args(project))
    wrong_store = _migrate(streamt_cli, project, "00000000-0000-4000-8000-000000000000", writer_role)
    assert wrong_store.error_codes == ["E411_STATE_INVALID"]
    wrong_role = _migrate(streamt_cli, project, created.data["store_id"], "somebody_else")
    assert wrong_role.error_codes == ["E411_STATE_INVALID"]
    assert "somebody_else" not in wrong_role.stdout
    # Nothing was touched: the hint names what to check, never a restore.
    hint = wrong_role.envelope["errors"][0]["suggestion"]
    assert "writer_role_env" in hint and "restore" not in hint
    still_v1 = open_state_backend(load_project(project, None), project, "read").status()
    assert still_v1["schema_version"] == 1 and still_v1["ordinary_state_authority"] == "disabled"


@pytest.mark.parametrize("role_source", ["owner", "missing"])
def test_migration_never_binds_the_owner_or_a_missing_role(
    make_project, streamt_cli, init_args, postgres_dsn, role_source, owner_sql
):
    from psycopg2.extensions import parse_dsn

    role = parse_dsn(postgres_dsn)["user"] if role_source == "owner" else "streamt_no_such_role"
    project = make_project()
    created = streamt_cli(*init_args(project))
    outcome = _migrate(streamt_cli, project, created.data["store_id"], role, env={"STREAMT_TEST_PG_WRITER_ROLE": role})
    assert outcome.error_codes == ["E411_STATE_INVALID"]
    assert role not in outcome.stdout
    status = streamt_cli("state", "lock-status", "-p", project)
    assert status.ok  # the v1 catalog is untouched and still exact


def test_lock_status_reports_busy_then_available(v2_project, streamt_cli):
    backend = open_state_backend(load_project(v2_project, None), v2_project, "write")
    with backend.operation_lock():
        busy = streamt_cli("state", "lock-status", "-p", v2_project)
        assert busy.ok, busy.envelope
        assert busy.data["lock_status"] == "busy"
    available = streamt_cli("state", "lock-status", "-p", v2_project)
    assert set(available.data) == SEED_LOCK_FIELDS
    assert available.data["lock_status"] == "available"
    assert available.data["reservation"] == "none"
    assert available.data["ordinary_state_authority"] == "not_verified"
    # The probe reserved nothing: an operation can take the lock right away.
    with backend.operation_lock():
        pass


def test_lock_status_of_an_uninitialized_store_is_invalid(make_project, streamt_cli):
    outcome = streamt_cli("state", "lock-status", "-p", make_project())
    assert outcome.error_codes == ["E411_STATE_INVALID"]


def test_text_output_of_the_admin_commands(make_project, text_cli, init_args, writer_role, streamt_cli):
    project = make_project()
    code, out, _ = text_cli(*init_args(project))
    assert code == 0 and "initialized" in out and "Ordinary state authority" in out
    assert ": None" not in out  # a missing value reads (none), never Python's None
    store_id = streamt_cli("state", "lock-status", "-p", project).data["store_id"]
    code, out, _ = text_cli("state", "migrate-postgres-v2", "-p", project, "--confirm-store-id", store_id,
                            "--confirm-writer-role", writer_role)  # fmt: skip
    assert code == 0
    assert "catalog_ready" in out and "supported_for_v2_writer" in out and "Schema version" in out
    assert " None" not in out
    code, out, _ = text_cli("state", "lock-status", "-p", project)
    assert code == 0 and "available" in out and " None" not in out


def test_core_state_status_command_renders_the_postgres_backend(v2_project, streamt_cli, text_cli, schema):
    outcome = streamt_cli("state", "status", "-p", v2_project)
    assert outcome.ok, outcome.envelope
    assert outcome.data["backend"] == "postgres"
    assert outcome.data["state_status"] == "absent"
    assert outcome.data["ordinary_state_authority"] == "supported_for_v2_writer"
    code, out, err = text_cli("state", "status", "-p", v2_project)
    assert code == 0 and ": None" not in out
    for blob in (outcome.stdout, out, err):
        assert schema not in blob and "STREAMT_TEST_PG" not in blob
