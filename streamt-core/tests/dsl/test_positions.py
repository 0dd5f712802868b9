"""Validation findings point at file:line:col of the declaration (or key) they are about."""

from __future__ import annotations

import types
from typing import Any

import pytest
from streamt import hookimpl
from streamt.errors import Codes, Diagnostic

ORPHAN = "  - name: orphan\n    topic: orphan.v1\n    columns: [{name: id, type: STRING}]\n"


def _locations(run: Any) -> dict[str, str]:
    envelope = run.envelope
    return {d["code"]: d.get("location") for d in envelope["errors"] + envelope["warnings"]}


def test_check_finding_has_line_and_column(streamt_project, base_files, cli) -> None:
    files = dict(base_files)
    files["sources/events.yml"] += ORPHAN  # line 7: "  - name: orphan"
    run = cli("json", "validate", "-p", streamt_project(files))
    assert _locations(run) == {"W202_UNUSED_SOURCE": "sources/events.yml:7:5"}
    text = cli("text", "validate", "-p", streamt_project(files))
    assert "(sources/events.yml:7:5)" in text.stderr


def test_error_in_second_file_and_second_declaration(streamt_project, base_files, cli) -> None:
    files = dict(base_files)
    files["models/more.yml"] = (
        "models:\n"
        "  - name: fine\n    materialized: flink\n    sql: SELECT id FROM {{ source('events') }}\n"
        "  - name: broken\n    materialized: flink\n    sql: SELECT id FROM {{ ref('nope') }}\n"
    )
    run = cli("json", "validate", "-p", streamt_project(files))
    assert _locations(run)["E102_MODEL_NOT_FOUND"] == "models/more.yml:5:5"


def test_jinja_error_points_at_the_sql_key(streamt_project, base_files, cli) -> None:
    files = dict(base_files)
    files["models/clean.yml"] = files["models/clean.yml"].replace('source("events") }}', "source( }}")
    run = cli("json", "validate", "-p", streamt_project(files))
    assert _locations(run)["E105_JINJA_SYNTAX_ERROR"] == "models/clean.yml:4:5"


def test_unknown_key_warning_points_at_the_key(streamt_project, base_files, cli) -> None:
    files = dict(base_files)
    files["stream_project.yml"] = files["stream_project.yml"].replace("apiVersion: streamt.dev/v1alpha1\n", "")
    files["models/clean.yml"] += "    colour: blue\n"
    run = cli("json", "validate", "-p", streamt_project(files))
    assert _locations(run)["W401_UNKNOWN_FIELD_IGNORED"] == "models/clean.yml:5:5"


def test_plugin_findings_located_through_project_locations_are_positioned(
    streamt_project, base_files, streamt_plugin, cli
) -> None:
    plugin = types.ModuleType("locating_plugin")

    def streamt_validate(project: Any, env: str) -> list[Any]:
        where = project.locations.get(("model", "clean"))
        return [Diagnostic(Codes.W901_PLUGIN_WARNING, "Model 'clean': plugin advice", "Do something.", where)]

    plugin.streamt_validate = hookimpl(streamt_validate)  # type: ignore[attr-defined]
    streamt_plugin(plugin)
    run = cli("json", "validate", "-p", streamt_project(base_files))
    assert _locations(run)["W901_PLUGIN_WARNING"] == "models/clean.yml:2:5"


def test_clean_project_parses_no_file_twice(streamt_project, base_files, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamt.project import yaml_io

    def refuse(*_args: Any) -> None:
        raise AssertionError("a clean project must not re-parse files for positions")

    monkeypatch.setattr(yaml_io, "_compose", refuse)
    run = cli("json", "validate", "-p", streamt_project(base_files))
    assert run.exit_code == 0 and run.codes == []


def test_locations_still_read_as_the_file(streamt_project, base_files) -> None:
    from streamt.project import load_project

    project = load_project(streamt_project(base_files), process_env={})
    assert project.locations[("model", "clean")] == "models/clean.yml"
