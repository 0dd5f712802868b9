"""A click group whose commands are imported only when they run.

``streamt --help`` must stay fast with every plugin installed, so the command
tree is a table of names, one-line help texts and import paths; the module
behind a command is imported when that command is invoked (or its own
``--help`` is asked for).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import click

from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.kinds import install_hint
from streamt.plugins import plugin_output_to_stderr
from streamt.untrusted import exception_name


class LazyGroup(click.Group):
    """A ``click.Group`` that also holds commands by import path."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # name -> (how to get the command, one-line help): an import path
        # ``module:attribute`` (core and plugin commands) or a zero-argument
        # factory (``Exporter.command_factory``), called only when needed.
        self.lazy_commands: dict[str, tuple[str | Callable[[], Any], str]] = {}
        self.owners: dict[str, str] = {}  # name -> plugin that added a factory, for E901
        self.expected: dict[str, tuple[str, str]] = {}
        self.shortened: set[str] = set()  # names whose text is a help to shorten, as click does
        self.conflicts: dict[str, Diagnostic] = {}  # name -> E906: two plugins offer it, neither is used
        self.claims: dict[tuple[str, ...], str] = {}  # on the root: command path -> the plugin holding it

    def add_lazy_command(self, name: str, import_path: str, short_help: str, *, shorten: bool = False) -> None:
        """Register ``module.path:attribute`` as subcommand ``name``.

        Listings show ``short_help`` as it is, as click shows a command's ``short_help``. With
        ``shorten``, the text is the command's help, cut to the listing's width as click cuts an
        imported command's help: a command that was added eagerly lists the same once it is lazy.
        """
        self.lazy_commands[name] = (import_path, short_help)
        if shorten:
            self.shortened.add(name)

    def add_lazy_factory(self, name: str, factory: Callable[[], Any], short_help: str, owner: str) -> None:
        """Register ``factory()`` (returning a ``click.Command``) as subcommand ``name`` of plugin ``owner``."""
        self.lazy_commands[name] = (factory, short_help)
        self.owners[name] = owner

    def add_conflict(self, name: str, conflict: Diagnostic) -> None:
        """Subcommand ``name`` that two plugins offer: neither is mounted, running it fails with ``conflict``."""
        self.lazy_commands.pop(name, None)
        self.conflicts[name] = conflict

    def expect(self, name: str, capability: str, short_help: str) -> None:
        """Declare a subcommand that a plugin normally provides.

        If no installed plugin adds it, invoking it fails with
        ``E903_PLUGIN_REQUIRED`` and the install command, instead of click's
        bare "no such command".
        """
        self.expected[name] = (capability, short_help)

    def add_group(self, name: str, help_text: str) -> LazyGroup:
        """Return the subgroup ``name``, creating an empty lazy one if needed."""
        existing = self.commands.get(name)
        if isinstance(existing, LazyGroup):
            return existing
        group = LazyGroup(name=name, help=help_text, short_help=help_text)
        self.add_command(group)
        return group

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(
            set(super().list_commands(ctx)) | set(self.lazy_commands) | set(self.expected) | set(self.conflicts)
        )

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            return command
        if cmd_name not in self.lazy_commands:
            if cmd_name in self.conflicts:
                return _refusing_command(cmd_name, self.conflicts[cmd_name])
            if cmd_name in self.expected:
                return _missing_plugin_command(cmd_name, *self.expected[cmd_name])
            return None
        source, _ = self.lazy_commands[cmd_name]
        if callable(source):
            command = _from_factory(cmd_name, source, self.owners.get(cmd_name, "unknown"))
        else:
            module_name, _, attribute = source.partition(":")
            with plugin_output_to_stderr():  # a command module's import-time print stays out of --help
                command = getattr(importlib.import_module(module_name), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{source} is not a click command")
        self.add_command(command, cmd_name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help listings use the table's short help, so nothing is imported.
        rows = []
        for name in self.list_commands(ctx):
            if name in self.commands:
                command = self.commands[name]
                if command.hidden:
                    continue
                rows.append((name, command.get_short_help_str(limit=formatter.width - 6 - len(name))))
            elif name in self.lazy_commands:
                text = self.lazy_commands[name][1]
                if name in self.shortened:  # click's own shortening, through a command that is only help
                    text = click.Command(name, help=text).get_short_help_str(formatter.width - 6 - len(name))
                rows.append((name, text))
            elif name in self.conflicts:
                rows.append((name, "(offered by two plugins; neither is used)"))
            else:
                rows.append((name, self.expected[name][1] + " (plugin not installed)"))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _refusing_command(name: str, problem: Diagnostic) -> click.Command:
    def callback(**_: Any) -> None:
        raise StreamtError.from_diagnostics([problem])

    return click.Command(
        name,
        callback=callback,
        help=problem.message,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        add_help_option=False,
    )


def _missing_plugin_command(name: str, capability: str, short_help: str) -> click.Command:
    def callback(**_: Any) -> None:
        raise StreamtError(
            Codes.E903_PLUGIN_REQUIRED,
            f"'{name}' is provided by a plugin that is not installed ({capability}).",
            install_hint(capability),
        )

    return click.Command(
        name,
        callback=callback,
        help=short_help,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        add_help_option=False,
    )


def _from_factory(name: str, factory: Callable[[], Any], owner: str) -> click.Command:
    """The factory's command; a factory that fails is the plugin's fault (E901), never a traceback."""
    try:
        with plugin_output_to_stderr():
            command = factory()
        if not isinstance(command, click.Command):
            raise TypeError("command_factory must return a click.Command")
    except Exception as exc:
        raise StreamtError(
            Codes.E901_PLUGIN_LOAD_FAILED,
            f"Plugin '{owner}' could not build its command '{name}' ({exception_name(exc)}).",
            "Reinstall or upgrade the plugin, or disable it with STREAMT_DISABLED_PLUGINS.",
            details={"plugin": owner},
        ) from None
    return command
