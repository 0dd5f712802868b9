"""Environment variables every command honours: project dir, env, log level, colour."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import click
import pytest
from streamt import hookimpl
from streamt.cli.options import env_option, project_dir_option
from streamt.errors import Codes, Diagnostic
from streamt.output import color_enabled, format_diagnostic
from streamt.result import Result
from streamt_testing import write_distribution

STREAMT = Path(sys.executable).with_name("streamt")


@click.command("where")
@project_dir_option
@env_option
def where(project_dir: str, env: str | None) -> Result:
    return Result("where", data={"project_dir": project_dir, "env": env})


def where_plugin() -> types.ModuleType:
    module = types.ModuleType("where_plugin")
    module.streamt_commands = hookimpl(lambda cli: cli.add_command(where))  # type: ignore[attr-defined]
    return module


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("STREAMT_PROJECT_DIR", "STREAMT_ENV"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_project_dir_and_env_default_to_the_current_directory_and_none(clean_env, streamt_cli, streamt_plugin) -> None:
    streamt_plugin(where_plugin())
    assert streamt_cli("where").data == {"project_dir": ".", "env": None}


def test_streamt_project_dir_sets_the_default_and_the_flag_wins(clean_env, streamt_cli, streamt_plugin) -> None:
    streamt_plugin(where_plugin())
    clean_env.setenv("STREAMT_PROJECT_DIR", "/srv/pipelines")
    assert streamt_cli("where").data["project_dir"] == "/srv/pipelines"
    assert streamt_cli("where", "--project-dir", "here").data["project_dir"] == "here"


MULTI_ENV = {
    "stream_project.yml": {"project": {"name": "multi"}},
    "environments/dev.yml": {"environment": {"name": "dev"}, "runtime": {"kafka": {"bootstrap_servers": "k:9092"}}},
}


def test_streamt_env_selects_the_environment_and_the_flag_wins(clean_env, streamt_cli, streamt_project) -> None:
    project = streamt_project(MULTI_ENV)
    clean_env.setenv("STREAMT_ENV", "nowhere")
    chosen_by_variable = streamt_cli("validate", "--project-dir", project)
    assert chosen_by_variable.error_codes == ["E503_ENVIRONMENT_ERROR"]
    assert "nowhere" in chosen_by_variable.envelope["errors"][0]["message"]
    chosen_by_flag = streamt_cli("validate", "--project-dir", project, "--env", "dev")
    assert "E503_ENVIRONMENT_ERROR" not in chosen_by_flag.error_codes, chosen_by_flag.envelope


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("variable", ["NO_COLOR", "STREAMT_NO_COLOR"])
def test_no_color_variables_disable_colour(monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("STREAMT_NO_COLOR", raising=False)
    assert color_enabled(FakeTty())
    monkeypatch.setenv(variable, "1")
    assert not color_enabled(FakeTty())
    monkeypatch.setenv(variable, "")  # the NO_COLOR convention: empty means unset
    assert color_enabled(FakeTty())


def test_colour_is_never_sent_to_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert not color_enabled(io.StringIO())
    diagnostic = Diagnostic(Codes.E101_SOURCE_NOT_FOUND, "Source 'x' not found", "Available: y")
    assert "\x1b[" in format_diagnostic(diagnostic, colored=True)
    assert "\x1b[" not in format_diagnostic(diagnostic, colored=False)


CRASHING_PLUGIN = """
import click
from streamt import hookimpl

@click.command("crash")
def crash():
    raise ZeroDivisionError("boom")

@hookimpl
def streamt_commands(cli):
    cli.add_command(crash)
"""


@pytest.mark.parametrize(("level", "logged"), [("DEBUG", True), ("WARNING", False)])
def test_logs_go_to_stderr_at_the_chosen_level_and_stdout_stays_one_document(
    tmp_path: Path, level: str, logged: bool
) -> None:
    site = write_distribution(tmp_path / "site", "streamt-crash", module="streamt_crash", source=CRASHING_PLUGIN)
    env = {**os.environ, "PYTHONPATH": str(site), "STREAMT_LOG_LEVEL": level}
    done = subprocess.run([STREAMT, "-o", "json", "crash"], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 1
    envelope = json.loads(done.stdout)
    assert [e["code"] for e in envelope["errors"]] == ["E999_INTERNAL_ERROR"]
    assert ("event='internal_error'" in done.stderr) is logged
    assert ("level='debug'" in done.stderr) is logged
    assert "Traceback" not in done.stderr
