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
