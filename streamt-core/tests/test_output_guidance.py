"""Output that guides: usage mistakes named with the fix, choices visible in --help, no Python None in text."""

from __future__ import annotations

import pytest

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "guide"},
        "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}},
        "sources": [{"name": "orders", "topic": "orders"}],
        "models": [{"name": "clean", "sql": 'SELECT * FROM {{ source("orders") }}'}],
    }
}


@pytest.mark.parametrize("flags", [["--upstream"], ["--downstream"], ["--upstream", "--downstream"]])
def test_lineage_direction_without_a_model_is_e900_with_the_fix(
    streamt_project, streamt_cli, streamt_cli_text, flags
) -> None:
    root = streamt_project(PROJECT)
    outcome = streamt_cli("lineage", "-p", root, *flags)
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E900_USAGE_ERROR" and error["message"] == f"{' and '.join(flags)} requires --model."
    assert f"streamt lineage --model <name> {' '.join(flags)}" in error["suggestion"]
    text = streamt_cli_text("lineage", "-p", root, *flags)
    assert text.exit_code == 1 and "error E900_USAGE_ERROR: " in text.stderr and "requires --model" in text.stderr
    assert streamt_cli("lineage", "-p", root, "--model", "clean", *flags).ok


def test_choices_are_shown_in_help(streamt_cli_text) -> None:
    recover = streamt_cli_text("state", "recover", "--help").stdout
    assert "observed," in recover and "rolled_back, abandoned_before_mutation" in recover


MULTI = {
    "stream_project.yml": {
        "project": {"name": "guide"},
        "sources": [{"name": "orders", "topic": "orders", "columns": [{"name": "id", "type": "STRING"}]}],
        "models": [{"name": "clean", "sql": 'SELECT id FROM {{ source("orderz") }}'}],
    },
    "environments/dev.yml": {"environment": {"name": "dev"}, "runtime": {"kafka": {"bootstrap_servers": "h:1"}}},
    "environments/prod.yml": {"environment": {"name": "prod"}, "runtime": {"kafka": {"bootstrap_servers": "h:1"}}},
}


def test_validate_prints_a_location_once(streamt_project, streamt_cli, streamt_cli_text) -> None:
    files = {
        "stream_project.yml": {"project": {"name": "guide"}, "sources": [{"name": "o", "topic": "o", "columns": 5}]}
    }
    root = streamt_project(files)
    lines = [line for line in streamt_cli_text("validate", "-p", root).stderr.splitlines() if "E501" in line]
    assert lines and all(line.count("(stream_project.yml:") == 1 for line in lines), lines
    for error in streamt_cli("validate", "-p", root).envelope["errors"]:  # JSON keeps message and location
        assert error["message"].endswith(f"({error['location']})")


def test_validate_all_envs_labels_each_finding_with_its_environment(streamt_project, streamt_cli_text) -> None:
    stderr = streamt_cli_text("validate", "-p", streamt_project(MULTI), "--all-envs").stderr
    assert "error E101_SOURCE_NOT_FOUND [dev]: Source 'orderz' not found" in stderr
    assert "error E101_SOURCE_NOT_FOUND [prod]: Source 'orderz' not found" in stderr


def test_validate_model_scope_suggests_from_the_whole_project(streamt_project, streamt_cli, streamt_cli_text) -> None:
    root = streamt_project(MULTI)
    scoped = streamt_cli("validate", "-p", root, "-e", "dev", "-m", "clean")
    whole = streamt_cli("validate", "-p", root, "-e", "dev")
    (error,) = [e for e in scoped.envelope["errors"] if e["code"] == "E101_SOURCE_NOT_FOUND"]
    assert error["suggestion"] == "Did you mean 'orders'?"
    assert error == next(e for e in whole.envelope["errors"] if e["code"] == "E101_SOURCE_NOT_FOUND")
    assert "hint: Did you mean 'orders'?" in streamt_cli_text("validate", "-p", root, "-e", "dev", "-m", "clean").stderr


def test_validate_names_a_materialization_no_installed_plugin_compiles(streamt_project, streamt_cli) -> None:
    files = {
        "stream_project.yml": {
            "project": {"name": "guide"},
            "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}},
            "sources": [{"name": "orders", "topic": "orders"}],
            "models": [{"name": "job", "materialized": "flink", "sql": 'SELECT * FROM {{ source("orders") }}'}],
        }
    }
    root = streamt_project(files)
    without = {"STREAMT_DISABLED_PLUGINS": "flink"}
    validated = streamt_cli("validate", "-p", root, env=without)
    compiled = streamt_cli("compile", "-p", root, "--dry-run", env=without)
    assert "E903_PLUGIN_REQUIRED" in validated.error_codes, validated.envelope
    (error,) = [e for e in validated.envelope["errors"] if e["code"] == "E903_PLUGIN_REQUIRED"]
    assert error == next(e for e in compiled.envelope["errors"] if e["code"] == "E903_PLUGIN_REQUIRED")
    assert error["suggestion"] == "Install it with: pip install 'streamt[flink]'"
