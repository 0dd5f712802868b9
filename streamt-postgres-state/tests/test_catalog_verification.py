"""Exact catalog verification: drift of ACL, objects or ownership fails closed with E411, never repaired."""

from __future__ import annotations

import psycopg2
import pytest
from streamt.project import load_project
from streamt.state.selection import open_state_backend

pytestmark = pytest.mark.postgres


def _status_role(postgres_status_dsn: str) -> str:
    from psycopg2.extensions import parse_dsn

    return str(parse_dsn(postgres_status_dsn)["user"])


def _assert_rejected_everywhere(project, streamt_cli) -> None:
    assert streamt_cli("state", "lock-status", "-p", project).error_codes == ["E411_STATE_INVALID"]
    with pytest.raises(Exception) as caught:
        open_state_backend(load_project(project, None), project, "read").status()
    assert caught.value.diagnostics[0].code.code == "E411_STATE_INVALID"
    with pytest.raises(Exception) as caught:
        open_state_backend(load_project(project, None), project, "write").read_state()
    assert caught.value.diagnostics[0].code.code == "E411_STATE_INVALID"


@pytest.mark.parametrize(
    "drift",
    [
        "GRANT SELECT ON {s}.ownership_state TO PUBLIC",
        "GRANT USAGE ON SCHEMA {s} TO PUBLIC",
        "CREATE TABLE {s}.extra (x int)",
        "CREATE VIEW {s}.peek AS SELECT 1 AS x",
        "CREATE SEQUENCE {s}.counter",
        "CREATE FUNCTION {s}.f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
        "CREATE INDEX extra_idx ON {s}.addresses (registered_at)",
        "ALTER TABLE {s}.addresses ADD COLUMN note text",
        "REVOKE INSERT ON {s}.ownership_history FROM {writer}",
        "GRANT DELETE ON {s}.ownership_state TO {writer}",
        "GRANT SELECT ON {s}.catalog_meta TO {writer} WITH GRANT OPTION",
        "REVOKE TRUNCATE ON {s}.operation_control FROM CURRENT_USER",
        "ALTER TABLE {s}.ownership_state ENABLE ROW LEVEL SECURITY",
    ],
)
def test_drift_is_rejected(v2_project, streamt_cli, owner_sql, schema, writer_role, drift) -> None:
    owner_sql(drift.format(s=schema, writer=writer_role))
    _assert_rejected_everywhere(v2_project, streamt_cli)


@pytest.mark.parametrize(
    "grant",
    [
        "GRANT INSERT ON {s}.ownership_state TO {status}",
        "GRANT SELECT ON {s}.ownership_state TO {status} WITH GRANT OPTION",
        "GRANT CREATE ON SCHEMA {s} TO {status}",
        "GRANT UPDATE (status) ON {s}.operation_control TO {status}",
    ],
)
def test_a_status_role_may_hold_nothing_but_plain_usage_and_select(
    v2_project, streamt_cli, owner_sql, schema, postgres_status_dsn, grant
) -> None:
    owner_sql(grant.format(s=schema, status=_status_role(postgres_status_dsn)))
    _assert_rejected_everywhere(v2_project, streamt_cli)


def test_plain_status_grants_are_accepted(v2_project, streamt_cli, owner_sql, schema, postgres_status_dsn) -> None:
    role = _status_role(postgres_status_dsn)
    owner_sql(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
    owner_sql(f"GRANT SELECT ON {schema}.ownership_state TO {role}")
    owner_sql(f"GRANT SELECT (address, status) ON {schema}.operation_control TO {role}")
    assert streamt_cli("state", "lock-status", "-p", v2_project).ok


def test_an_object_with_another_owner_is_rejected(
    v2_project, streamt_cli, owner_sql, schema, postgres_status_dsn
) -> None:
    role = _status_role(postgres_status_dsn)
    owner_sql(f"GRANT CREATE, USAGE ON SCHEMA {schema} TO {role}")
    intruder = psycopg2.connect(postgres_status_dsn)
    intruder.autocommit = True
    with intruder.cursor() as cur:
        cur.execute(f"CREATE TABLE {schema}.intruder (x int)")
    intruder.close()
    owner_sql(f"REVOKE CREATE, USAGE ON SCHEMA {schema} FROM {role}")  # the ACL is exact again; the owner is not
    _assert_rejected_everywhere(v2_project, streamt_cli)


def test_init_refuses_a_partial_catalog_and_repairs_nothing(make_project, streamt_cli, init_args, owner_sql, schema):
    project = make_project()
    assert streamt_cli(*init_args(project)).ok
    owner_sql(f"DROP TABLE {schema}.operation_history")
    again = streamt_cli(*init_args(project))
    assert again.error_codes == ["E411_STATE_INVALID"]
    assert (
        owner_sql("SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = 'operation_history'", (schema,)) == []
    )


def test_init_into_an_existing_empty_schema_it_owns(make_project, streamt_cli, init_args, owner_sql, schema):
    owner_sql(f"CREATE SCHEMA {schema}")
    project = make_project()
    created = streamt_cli(*init_args(project))
    assert created.ok and created.data["outcome"] == "initialized"


def test_init_refuses_a_populated_address(v2_project, streamt_cli, init_args) -> None:
    from streamt.state.records import OwnershipRecord

    backend = open_state_backend(load_project(v2_project, None), v2_project, "write")
    with backend.operation_lock():
        control = backend.begin_operation("apply", [])
        record = OwnershipRecord("r", "topic", "t", "t", "managed", "sha256:" + "0" * 64, "streamt-kafka")
        backend.commit(control, [record])
    assert streamt_cli(*init_args(v2_project)).error_codes == ["E411_STATE_INVALID"]


def test_a_hand_edited_state_document_is_rejected(v2_project, owner_sql, schema) -> None:
    backend = open_state_backend(load_project(v2_project, None), v2_project, "write")
    with backend.operation_lock():
        backend.commit(backend.begin_operation("apply", []), [])
    owner_sql(f"UPDATE {schema}.ownership_state SET document = jsonb_set(document, '{{serial}}', '7')")
    with pytest.raises(Exception) as caught:
        backend.read_state()
    assert caught.value.diagnostics[0].code.code == "E411_STATE_INVALID"
