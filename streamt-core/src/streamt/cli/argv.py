"""``-o/--output`` after the command name, as people type it (``streamt validate -o json``).

The global option belongs before the command; a command line that has it after the command is
rewritten to the global form before anything parses it, unless that command has an ``--output``
of its own (``docs generate --output DIR``), which then keeps its meaning.

A global option after the command with a missing or unknown format is moved too, so that it gets the
usage error the leading form gets (``Option '-o' requires an argument.``, ``Invalid value for
'--output'``), never "No such option" for an option the CLI has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from streamt.output import FORMATS

_SHORT, _LONG = "-o", "--output"


def hoist_output(argv: Sequence[str], build: Callable[[], Any]) -> list[str]:
    """``argv`` with a trailing ``-o FORMAT`` / ``--output FORMAT`` moved before the command."""
    start = _command_start(argv)
    if start is None or not any(_is_output(arg) for arg in argv[start:]):
        return list(argv)  # the common case: nothing to move, no command tree built
    try:
        leaf = _leaf(build(), argv[start:])
    except Exception:  # a tree that cannot be built: running the line as typed reports why, as one envelope
        return list(argv)
    own = {opt for param in getattr(leaf, "params", ()) for opt in getattr(param, "opts", ())}
    head, rest, moved = list(argv[:start]), list[str](), list[str]()
    i = start
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        value, width = _output_value(argv, i)
        flag = _LONG if arg.startswith(_LONG) else _SHORT
        if flag not in own and _is_output(arg):
            if value is None:  # nothing follows: the usage error of a bare global -o, whatever came after
                return [*moved, *head, _SHORT]
            if value in FORMATS:
                moved = [_SHORT, value]
            else:  # after the leading options, so that click reports it whatever they chose
                head.append(f"{_LONG}={value}")
            i += width
            continue
        rest.append(arg)
        i += 1
    return [*moved, *head, *rest] if moved or len(head) > start else list(argv)


def _command_start(argv: Sequence[str]) -> int | None:
    skip = False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg in (_SHORT, _LONG):
            skip = True
        elif not arg.startswith("-"):
            return i
    return None


def _is_output(arg: str) -> bool:
    return arg in (_SHORT, _LONG) or arg.startswith(f"{_LONG}=") or (arg.startswith(_SHORT) and arg[2:] in FORMATS)


def _output_value(argv: Sequence[str], i: int) -> tuple[str | None, int]:
    """``(FORMAT or None, tokens it spans)`` of an output option at ``argv[i]``."""
    arg = argv[i]
    if arg in (_SHORT, _LONG):
        return (argv[i + 1], 2) if i + 1 < len(argv) else (None, 1)
    if arg.startswith(f"{_LONG}="):
        return arg.split("=", 1)[1], 1
    if arg.startswith(_SHORT) and not arg.startswith("--"):
        return arg[2:], 1
    return None, 1


def _leaf(group: click.Group, words: Sequence[str]) -> click.Command:
    """The (sub)command ``words`` name, as far as they name one."""
    ctx = click.Context(group)
    command: click.Command = group
    for word in words:
        if word.startswith("-") or not isinstance(command, click.Group):
            break
        found = command.get_command(ctx, word)
        if found is None:
            break
        command = found
    return command
