"""The start-up outputs of two installs, compared byte for byte: a start-up change must not show.

Runs the same command lines with two ``streamt`` executables (e.g. the tree before a change in its
own virtual environment, and this one) at 80 columns: ``--help``, ``-h``, no arguments,
``--version``, ``plugins`` and ``-o json plugins``, usage errors, and ``--help`` of every command
and subcommand (text and ``-o json``), and compares stdout, stderr and the exit code.

    .venv/bin/python bench/startup_outputs.py BEFORE/.venv/bin/streamt .venv/bin/streamt

The command tree is read from this install (every lazy command is imported to find subgroups).
Exits 1 when any line differs, naming it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import click
from streamt.cli import build_cli

FIXED = [
    ["--help"],
    ["-h"],
    [],
    ["--version"],
    ["-o", "json", "--version"],
    ["-o", "json", "--help"],
    ["plugins"],
    ["-o", "json", "plugins"],
    ["nosuch"],
    ["-o", "json", "nosuch"],
    ["validate", "--bogus"],
    ["-o", "json", "validate", "--bogus"],
]


def command_paths() -> list[list[str]]:
    """Every command and subcommand of the tree, as argument lists."""
    found: list[list[str]] = []

    def walk(group: click.Group, prefix: list[str]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            found.append([*prefix, name])
            command = group.get_command(ctx, name)
            if isinstance(command, click.Group):
                walk(command, [*prefix, name])

    walk(build_cli(), [])
    return found


def main() -> int:
    before, after = sys.argv[1], sys.argv[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMT_")}
    env["COLUMNS"] = "80"
    lines = [*FIXED]
    for path in command_paths():
        lines += [[*path, "--help"], ["-o", "json", *path, "--help"]]
    differ = 0
    for argv in lines:
        old = subprocess.run([before, *argv], env=env, capture_output=True)
        new = subprocess.run([after, *argv], env=env, capture_output=True)
        if (old.stdout, old.stderr, old.returncode) != (new.stdout, new.stderr, new.returncode):
            differ += 1
            print("differs: streamt", " ".join(argv))
    print(f"{len(lines)} command lines, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
