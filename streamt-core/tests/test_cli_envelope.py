"""`streamt -o json <anything>` prints exactly one envelope, for every command, success or failure.

The command list is read from the assembled CLI, so a command added later
(by core or by any installed plugin) is covered without editing this file.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import click
import pytest
from streamt.cli import build_cli
from streamt.errors import Codes
from streamt_testing import CliOutcome, run_cli


def every_command_path() -> list[tuple[str, ...]]:
    ctx = click.Context(build_cli())
    paths: list[tuple[str, ...]] = []

    def walk(group: click.Group, prefix: tuple[str, ...], ctx: click.Context) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, f"listed but not resolvable: {' '.join((*prefix, name))}"
            paths.append((*prefix, name))
            if isinstance(command, click.Group):
                walk(command, (*prefix, name), click.Context(command, parent=ctx))

    walk(ctx.command, (), ctx)  # type: ignore[arg-type]
    return paths


COMMANDS = every_command_path()
IDS = [" ".join(path) for path in COMMANDS]


def assert_consistent(outcome: CliOutcome) -> None:
    """Status, exit code and codes agree; every code is registered and explained."""
    envelope = outcome.envelope
    assert envelope["status"] in ("ok", "error")
    assert outcome.exit_code == (0 if envelope["status"] == "ok" else 1)
    if envelope["status"] == "error":
        assert envelope["errors"], "an error envelope names at least one error"
    for diagnostic in envelope["errors"] + envelope["warnings"]:
        assert diagnostic["code"] in Codes, diagnostic
        assert diagnostic["message"]
        assert "suggestion" in diagnostic
    for diagnostic in envelope["errors"]:
        assert diagnostic["suggestion"], f"errors carry a suggestion: {diagnostic}"
    assert "Traceback" not in outcome.stdout + outcome.stderr


@pytest.fixture(autouse=True)
def empty_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # Commands that default to the current directory find no project here.
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STREAMT_PROJECT_DIR", raising=False)
    monkeypatch.delenv("STREAMT_ENV", raising=False)
    return tmp_path


def test_the_walk_sees_core_plugin_and_group_commands() -> None:
    assert {"validate", "plugins", "export", "state"} <= {path[0] for path in COMMANDS}
    assert ("state", "status") in COMMANDS and ("docs", "dictionary") in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_every_command_without_arguments_prints_one_envelope(path: tuple[str, ...]) -> None:
    outcome = run_cli(*path)
    assert_consistent(outcome)
    assert outcome.envelope["command"] in (" ".join(path), "help")


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_every_command_with_an_unknown_option_fails_with_one_envelope(path: tuple[str, ...]) -> None:
    outcome = run_cli(*path, "--no-such-option-anywhere")
    assert_consistent(outcome)
    assert outcome.envelope["status"] == "error"


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_every_command_with_a_missing_project_dir_answers_one_envelope(path: tuple[str, ...], tmp_path: Path) -> None:
    # Beneath a regular file, so that not even `init` can create it.
    (tmp_path / "a-file").write_text("")
    outcome = run_cli(*path, "--project-dir", tmp_path / "a-file" / "project")
    assert_consistent(outcome)
    if outcome.envelope["status"] == "ok":
        # Only groups answer with their help, and that is a success.
        assert isinstance(build_cli().get_command(click.Context(build_cli()), path[0]), click.Group)


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_every_command_answers_help_in_the_envelope(path: tuple[str, ...]) -> None:
    outcome = run_cli(*path, "--help")
    assert_consistent(outcome)
    if outcome.ok:
        assert "Usage: streamt" in outcome.data["help"]


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["-h"],
        ["--version"],
        ["no-such-command"],
        ["export", "no-such-exporter"],
        ["--bogus"],
        ["plugins", "--all", "--all", "extra-argument"],
        ["--", "validate"],
    ],
    ids=repr,
)
def test_root_level_oddities_print_one_envelope(argv: list[str]) -> None:
    assert_consistent(run_cli(*argv))


def test_usage_errors_use_e900_and_exit_1() -> None:
    outcome = run_cli("no-such-command")
    assert outcome.exit_code == 1
    assert outcome.error_codes == ["E900_USAGE_ERROR"]
    assert "no-such-command" in outcome.envelope["errors"][0]["message"]


def test_version_is_data_not_text() -> None:
    from streamt import __version__

    outcome = run_cli("--version")
    assert outcome.ok and outcome.data == {"version": __version__}


@pytest.mark.parametrize("spelling", [["-o", "json"], ["--output", "json"], ["--output=json"], ["-ojson"]])
def test_every_spelling_of_json_mode_is_honoured_even_for_usage_errors(spelling: list[str]) -> None:
    import io
    import json

    from streamt.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    code = run([*spelling, "--no-such-option"], stdout=stdout, stderr=stderr)
    assert code == 1
    assert json.loads(stdout.getvalue())["errors"][0]["code"] == "E900_USAGE_ERROR"


def test_an_unknown_output_format_is_a_usage_error_in_text_mode() -> None:
    import io

    from streamt.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(["-o", "yaml", "plugins"], stdout=stdout, stderr=stderr) == 1
    assert "E900_USAGE_ERROR" in stderr.getvalue() and stdout.getvalue() == ""


@pytest.mark.parametrize("path", COMMANDS, ids=IDS)
def test_every_command_accepts_output_after_its_name(path: tuple[str, ...]) -> None:
    # `streamt validate -o json`, as people type it, is `streamt -o json validate`.
    from streamt.cli.argv import hoist_output

    own_output = path == ("docs", "generate")  # its --output is the site directory
    for spelling in (["-o", "json"], ["-ojson"], *([] if own_output else [["--output=json"], ["--output", "json"]])):
        assert hoist_output([*path, "-p", ".", *spelling], build_cli) == ["-o", "json", *path, "-p", "."], spelling


def test_output_after_the_command_renders_the_same_envelope() -> None:
    from streamt.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    exit_code = run(["validate", "-o", "json"], stdout=stdout, stderr=stderr)
    reference = run_cli("validate")
    assert json.loads(stdout.getvalue()) == reference.envelope and exit_code == reference.exit_code == 1


def test_a_command_with_its_own_output_option_keeps_it(tmp_path: Path) -> None:
    from streamt.cli.argv import hoist_output

    assert hoist_output(["docs", "generate", "--output", "json"], build_cli) == ["docs", "generate", "--output", "json"]
    assert hoist_output(["validate", "-p", ".", "--output", "json"], build_cli) == ["-o", "json", "validate", "-p", "."]
    assert hoist_output(["validate", "--", "-o", "json"], build_cli) == ["validate", "--", "-o", "json"]


def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path) -> None:
    # `streamt -o json validate | head -3`: the pipe closes before the envelope is written.
    import subprocess
    import sys

    streamt = str(Path(sys.executable).with_name("streamt"))
    process = subprocess.Popen([streamt, "-o", "json", "validate"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait() == 1 and "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr


def test_a_command_tree_that_cannot_be_built_leaves_the_line_as_typed() -> None:
    from streamt.cli.argv import hoist_output

    def broken() -> click.Group:
        raise RuntimeError("a plugin's streamt_commands raised")

    assert hoist_output(["validate", "-o", "json"], broken) == ["validate", "-o", "json"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (["-o"], "Option '-o' requires an argument."),
        (["validate", "-o"], "Option '-o' requires an argument."),
        (["validate", "-p", ".", "--output"], "Option '-o' requires an argument."),
        (["validate", "-o", "yaml"], "Invalid value for '--output' / '-o': 'yaml' is not one of 'text', 'json'."),
    ],
)
def test_a_global_output_option_without_a_format_is_one_usage_error(line: list[str], message: str) -> None:
    # Issue 28: `validate -o` answered "No such option '-o'" for an option the CLI has. Without a format the
    # answer is text (the default); an earlier `-o json` on the line makes it the JSON envelope.
    from streamt.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    assert run(line, stdout=stdout, stderr=stderr) == 1
    assert stdout.getvalue() == "" and stderr.getvalue().startswith(f"error E900_USAGE_ERROR: {message}\n")
    stdout = io.StringIO()
    assert run(["-o", "json", *line], stdout=stdout, stderr=io.StringIO()) == 1
    envelope = json.loads(stdout.getvalue())
    assert envelope["command"] == (line[0] if line[0] != "-o" else "streamt")
    assert [(e["code"], e["message"]) for e in envelope["errors"]] == [("E900_USAGE_ERROR", message)]
