"""E503 through the CLI, for every way an environment selection can be wrong, in both output modes."""

from __future__ import annotations

from pathlib import Path

import pytest

MULTI = {
    "stream_project.yml": "apiVersion: streamt.dev/v1alpha1\nproject: {name: demo}\n",
    "environments/dev.yml": "runtime: {kafka: {bootstrap_servers: 'localhost:9092'}}\n",
    "environments/prod.yml": "environment: {protected: true}\nruntime: {kafka: {bootstrap_servers: 'k:9092'}}\n",
}

# case -> (multi-environment project?, extra args, message fragment, suggestion fragment)
CASES = {
    "no env in multi-env mode": (True, (), "choose an environment. Available: dev, prod", "Pass --env <name>"),
    "unknown env": (True, ("--env", "prd"), "Environment 'prd' not found. Available: dev, prod", "prod"),
    "--env in single-env mode": (False, ("--env", "dev"), "No environments configured, but --env 'dev'", "drop --env"),
    "bad env name": (True, ("--env", "../prod"), "Invalid environment name '../prod'", "letters, digits"),
}


@pytest.fixture(autouse=True)
def _no_streamt_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STREAMT_ENV", raising=False)


def _project(streamt_project, base_files: dict[str, str], multi: bool) -> Path:
    return streamt_project(MULTI if multi else base_files)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", [("validate",), ("list", "models"), ("lineage",), ("docs", "dictionary")])
def test_e503_in_json(case: str, command: tuple[str, ...], streamt_project, base_files, cli) -> None:
    multi, args, message, suggestion = CASES[case]
    run = cli("json", *command, "-p", _project(streamt_project, base_files, multi), *args)
    assert run.exit_code == 1
    envelope = run.envelope
    assert envelope["status"] == "error"
    assert [e["code"] for e in envelope["errors"]] == ["E503_ENVIRONMENT_ERROR"]
    assert message in envelope["errors"][0]["message"]
    assert suggestion in envelope["errors"][0]["suggestion"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_e503_in_text(case: str, streamt_project, base_files, cli) -> None:
    multi, args, message, suggestion = CASES[case]
    run = cli("text", "validate", "-p", _project(streamt_project, base_files, multi), *args)
    assert run.exit_code == 1
    assert "E503_ENVIRONMENT_ERROR" in run.stderr and message in run.stderr and suggestion in run.stderr
    assert "Traceback" not in run.text


def test_streamt_env_variable_selects_and_flag_wins(streamt_project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    project = streamt_project(MULTI)
    monkeypatch.setenv("STREAMT_ENV", "prod")
    assert cli("json", "validate", "-p", project).envelope["data"]["environment"] == "prod"
    assert cli("json", "validate", "-p", project, "--env", "dev").envelope["data"]["environment"] == "dev"
    monkeypatch.setenv("STREAMT_ENV", "nope")
    assert cli("json", "validate", "-p", project).envelope["errors"][0]["code"] == "E503_ENVIRONMENT_ERROR"
