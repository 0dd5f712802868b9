"""The ``streamt`` command line.

``main`` owns the process boundary: it parses the global options, assembles
the command tree from plugins, runs one command, and renders exactly one
``Result``. Whatever goes wrong — a usage error, a broken plugin, an
unexpected exception — still ends as one envelope in ``-o json`` mode and a
non-zero exit code, never a traceback.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

import click

from streamt import __version__, output
from streamt.cli.argv import hoist_output
from streamt.cli.lazy import LazyGroup
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.interruption import CommandInterrupted, Terminated, end_by
from streamt.output import FORMATS, JSON, TEXT
from streamt.result import Result
from streamt.untrusted import exception_name
from streamt.values import replace


class Context:
    """What every command can read from ``click.get_current_context().obj``.

    ``stdout`` is the stream the result is rendered to (``observe --watch`` writes its earlier
    snapshots there first); ``stderr`` the one this run reports on (progress, never the result):
    the process's, or a test's when ``run`` is given them.
    """

    def __init__(self, output: str, stderr: Any = None, stdout: Any = None) -> None:
        self.output = output
        self.stderr = stderr if stderr is not None else sys.stderr
        self.stdout = stdout if stdout is not None else sys.stdout

    @property
    def json(self) -> bool:
        return self.output == JSON


class ResultReady(Exception):
    """Raised by eager options (``--version``) that answer without a command."""

    def __init__(self, result: Result) -> None:
        super().__init__(result.command)
        self.result = result


def _show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        raise ResultReady(Result("version", data={"version": __version__}, text=f"streamt {__version__}"))


def _root_callback(ctx: click.Context, output: str, log_format: str | None) -> None:
    given = ctx.obj if isinstance(ctx.obj, Context) else Context(output)
    ctx.obj = Context(output, given.stderr, given.stdout)
    from streamt import log  # structlog and logging only for commands, not for --help

    log.set_format(log_format)
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit()


def make_root() -> LazyGroup:
    """A fresh root group with the global options and no subcommands yet.

    Built anew for every ``run`` so that commands mounted by a plugin that a
    test registered temporarily do not outlive it.
    """
    group = LazyGroup(
        name="streamt",
        callback=click.pass_context(_root_callback),
        invoke_without_command=True,
        context_settings={"help_option_names": ["--help", "-h"]},
        help=_ROOT_HELP,
        params=[
            click.Option(
                ["--output", "-o"],
                type=click.Choice(FORMATS),
                default=TEXT,
                show_default=True,
                help="Output format: text for people, json for one machine-readable envelope.",
            ),
            click.Option(
                ["--log-format"],
                type=click.Choice(LOG_FORMATS),
                default=None,
                help="Log lines on stderr as keyvalue (default) or json (env: STREAMT_LOG_FORMAT).",
            ),
            click.Option(
                ["--version"],
                is_flag=True,
                expose_value=False,
                is_eager=True,
                callback=_show_version,
                help="Show the version and exit.",
            ),
        ],
    )
    return group


_ROOT_HELP = """streamt — declare, validate, compile, plan and apply streaming pipelines.

Every command accepts the global -o json to print one JSON envelope
{status, command, data, errors, warnings}; exit code 0 means success.
"""


def build_cli() -> LazyGroup:
    """Assemble the command tree: core's built-in plugin and every other plugin."""
    from streamt.plugins import get_plugins

    root = make_root()
    plugins = get_plugins()
    from streamt.cli.command_claims import mount_commands
    from streamt.cli.exporters import mount_expected, mount_exporters

    mount_commands(root, plugins)
    mount_exporters(root, plugins)
    mount_expected(root, plugins)
    return root


LOG_FORMATS = ("keyvalue", "json")  # streamt.log's, named here so that --help does not import logging
# Global options that take a value: the value is not a command word.
_VALUED = ("-o", "--output", "--log-format")


def _sniff_output(argv: Sequence[str]) -> str:
    """The -o value, read before click parses, so usage errors honour it too."""
    for i, arg in enumerate(argv):
        if not arg.startswith("-") and not (i and argv[i - 1] in _VALUED):
            break  # global options come before the command
        value = None
        if arg in ("-o", "--output") and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--output="):
            value = arg.split("=", 1)[1]
        elif arg.startswith("-o") and len(arg) > 2:
            value = arg[2:]
        if value in FORMATS:
            return value
    return TEXT


def _command_name(argv: Sequence[str]) -> str:
    """``validate``, or ``export strimzi`` for a subcommand of a group."""
    from streamt.builtin import GROUPS

    words: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in _VALUED and not words:
            skip = True
            continue
        if arg.startswith("-"):
            if words:
                break
            continue
        words.append(arg)
        if len(words) == 2 or words[0] not in GROUPS:
            break
    return " ".join(words) or "streamt"


def run(argv: Sequence[str], stdout: Any = None, stderr: Any = None) -> int:
    """Run one command line and return the exit code (testable entry point)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    command = _command_name(argv)  # as typed: a hoisted bare `-o` leaves no command word behind
    argv = hoist_output(argv, build_cli)
    fmt = _sniff_output(argv)
    try:
        result = _execute(list(argv), command, stdout, stderr)
    except Terminated:  # SIGTERM during a run that has nothing more to say (`test --emit-openlineage`)
        end_by(signal.SIGTERM)
        raise
    except CommandInterrupted as interrupted:
        code = _render(interrupted.result, fmt, stdout, stderr)
        end_by(interrupted.signum)
        return code
    return _render(result, fmt, stdout, stderr)


def _render(result: Result, fmt: str, stdout: Any, stderr: Any) -> int:
    warnings = tuple(_plugin_diagnostics())
    if warnings:
        result = _with_plugin_diagnostics(result, warnings)
    if fmt == JSON:
        return output.render_json(result, stdout)
    return output.render_text(result, stdout, stderr)


def _execute(argv: list[str], command: str, stdout: Any, stderr: Any) -> Result:
    captured = io.StringIO()
    # Commands never print, but help pages and third-party code might: keep
    # stdout for the one document we render, and show any stray text on
    # stderr (text mode shows help on stdout as people expect).
    try:
        with contextlib.redirect_stdout(captured):
            group = build_cli()
            rv = group.main(args=argv, prog_name="streamt", standalone_mode=False, obj=Context(TEXT, stderr, stdout))
    except ResultReady as ready:
        return ready.result
    except StreamtError as exc:
        return Result(command, data=exc.data, errors=tuple(exc.diagnostics))
    except click.exceptions.Abort:
        return _error(command, Codes.E900_USAGE_ERROR, "Aborted.", None)
    except click.exceptions.NoArgsIsHelpError:
        return _help_or_exit(command, captured.getvalue() or _group_help(argv), 0)
    except click.ClickException as exc:
        return _error(command, Codes.E900_USAGE_ERROR, exc.format_message(), "Run with --help to see the usage.")
    except click.exceptions.Exit as exc:
        return _help_or_exit(command, captured.getvalue(), exc.exit_code)
    except Exception as exc:  # the last line of defence: no traceback ever
        _log_internal(exc)
        culprit = _plugin_in_traceback(exc)
        where = f" in plugin '{culprit}'" if culprit else ""
        result = _error(
            command,
            Codes.E999_INTERNAL_ERROR,
            f"Unexpected internal error{where} ({exception_name(exc)}).",
            "Re-run with STREAMT_LOG_LEVEL=DEBUG for the location, and report it"
            + (f" to the maintainers of '{culprit}'." if culprit else "."),
        )
        if culprit:
            result = replace(result, errors=(replace(result.errors[0], details={"plugin": culprit}),))
        return result
    stray = captured.getvalue()
    if isinstance(rv, Result):
        if stray:
            stderr.write(stray)
        return rv
    code = rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
    return _help_or_exit(command, stray, code)


def _help_or_exit(command: str, text: str, code: int) -> Result:
    if code:
        return _error(command, Codes.E900_USAGE_ERROR, text.strip() or "Command failed.", "Run with --help.")
    return Result(command if command != "streamt" else "help", data={"help": text}, text=text.rstrip("\n"))


def _group_help(argv: list[str]) -> str:
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(click.exceptions.Exit):
        build_cli().main(args=[*argv, "--help"], prog_name="streamt", standalone_mode=False)
    return out.getvalue()


def _error(command: str, code: Any, message: str, suggestion: str | None) -> Result:
    return Result(command, errors=(Diagnostic(code, message, suggestion),))


def _plugin_diagnostics() -> list[Diagnostic]:
    from streamt import plugins

    loaded = plugins._PLUGINS
    return list(loaded.diagnostics) if loaded is not None else []


def _with_plugin_diagnostics(result: Result, diagnostics: tuple[Diagnostic, ...]) -> Result:
    # A broken plugin is reported on every command, as a warning: the command
    # itself ran without it. `streamt plugins` reports them as errors.
    if result.command == "plugins":
        return result
    as_warnings = tuple(Diagnostic(d.code, d.message, d.suggestion, d.location, d.details) for d in diagnostics)
    # Commands may hand back lists; a broken plugin must never turn into a TypeError here.
    return replace(result, warnings=(*result.warnings, *as_warnings))


def _plugin_in_traceback(exc: BaseException) -> str | None:
    """The plugin whose code raised ``exc`` (innermost frame first), if any."""
    from streamt import plugins

    loaded = plugins._PLUGINS
    if loaded is None:
        return None
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_globals.get("__name__", ""))
        tb = tb.tb_next
    for module_name in reversed(frames):
        owner = loaded.owner_of(module_name)
        if owner is not None:
            return owner
    return None


def _log_internal(exc: BaseException) -> None:
    from streamt.log import get_logger

    tb = exc.__traceback__
    where = "unknown"
    while tb is not None:
        where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    get_logger().debug("internal_error", type=exception_name(exc), where=where)


def main() -> None:
    try:
        code = run(sys.argv[1:])
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`streamt -o json validate | head -3`): nothing is left to tell it. Point
        # stdout at /dev/null so that the interpreter's own final flush cannot fail (and print) again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    # The command is done and its output flushed; what is left alive is mostly the loaded and compiled
    # project, which the interpreter's collections at exit would walk once more for nothing (~8 % of a
    # 5,000-model `plan --offline`, bench/README.md). Freezing moves it out of the collector's reach.
    # Nothing streamt keeps needs a finalizer to run at exit: every file it writes is closed, and synced,
    # when written.
    gc.freeze()
    sys.exit(code)
