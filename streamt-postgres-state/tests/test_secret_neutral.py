"""No DSN, host, role, login, schema name or raw driver text in any output, in either output mode."""

from __future__ import annotations

import pytest
from psycopg2.extensions import make_dsn, parse_dsn

pytestmark = pytest.mark.postgres

PASSWORD = "SENTINEL-PW-93f1"
ROLE = "sentinel_role_5c2e"
HOST = "sentinel-host-7d41.invalid"


def _outputs(streamt_cli, text_cli, args, env):
    json_run = streamt_cli(*args, env=env)
    code, out, err = text_cli(*args)
    assert code == json_run.exit_code == 1
    return json_run, json_run.stdout + json_run.stderr + out + err


def _assert_clean(blob: str, *secrets: str) -> None:
    for secret in secrets:
        assert secret not in blob
    for driver_text in ("psycopg2", "FATAL", "password authentication", "could not translate", "Traceback"):
        assert driver_text not in blob


def test_bad_credentials_and_hosts_never_leak(
    make_project, streamt_cli, text_cli, init_args, postgres_dsn, schema, monkeypatch
):
    project = make_project()
    wrong_password = make_dsn(postgres_dsn, password=PASSWORD)
    wrong_host = make_dsn(postgres_dsn, host=HOST, user=ROLE, password=PASSWORD)
    for dsn in (wrong_password, wrong_host):
        env = {"STREAMT_TEST_PG_OWNER_DSN": dsn}
        for args in (init_args(project), ["state", "lock-status", "-p", str(project)]):
            monkeypatch.setenv("STREAMT_TEST_PG_OWNER_DSN", dsn)  # text_cli reads the process environment
            run, blob = _outputs(streamt_cli, text_cli, args, env)
            assert run.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"]
            _assert_clean(blob, PASSWORD, ROLE, HOST, dsn, schema, parse_dsn(postgres_dsn)["port"] + "/")


def test_a_mismatched_writer_role_is_never_echoed(make_project, streamt_cli, text_cli, init_args, schema, monkeypatch):
    project = make_project()
    store_id = streamt_cli(*init_args(project)).data["store_id"]
    args = ["state", "migrate-postgres-v2", "-p", str(project), "--confirm-store-id", store_id]
    run, blob = _outputs(streamt_cli, text_cli, [*args, "--confirm-writer-role", ROLE], None)
    assert run.error_codes == ["E411_STATE_INVALID"]
    _assert_clean(blob, ROLE, schema, "STREAMT_TEST_PG")
    monkeypatch.setenv("STREAMT_TEST_PG_WRITER_ROLE", ROLE)  # exists nowhere: refused without echo
    run, blob = _outputs(streamt_cli, text_cli, [*args, "--confirm-writer-role", ROLE], None)
    assert run.error_codes == ["E411_STATE_INVALID"]
    _assert_clean(blob, ROLE, schema)


def test_missing_variables_are_not_named(make_project, streamt_cli, text_cli, init_args, monkeypatch):
    project = make_project()
    monkeypatch.delenv("STREAMT_TEST_PG_OWNER_DSN")
    run, blob = _outputs(streamt_cli, text_cli, init_args(project), None)
    assert run.error_codes == ["E420_STATE_BACKEND_UNAVAILABLE"]
    _assert_clean(blob, "STREAMT_TEST_PG_OWNER_DSN")


def test_writer_authority_failures_are_secret_neutral(v2_project, monkeypatch, postgres_writer_dsn) -> None:
    from streamt.errors import StreamtError
    from streamt.project import load_project
    from streamt.state.selection import open_state_backend

    monkeypatch.setenv("STREAMT_TEST_PG_WRITER_DSN", make_dsn(postgres_writer_dsn, password=PASSWORD))
    backend = open_state_backend(load_project(v2_project, None), v2_project, "write")
    with pytest.raises(StreamtError) as caught, backend.operation_lock():
        pass
    blob = repr([d.to_json() for d in caught.value.diagnostics]) + repr(caught.value.data)
    assert caught.value.diagnostics[0].code.code == "E420_STATE_BACKEND_UNAVAILABLE"
    _assert_clean(blob, PASSWORD, parse_dsn(postgres_writer_dsn)["user"])
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
