"""streamt plugin: ``streamt impact``, the declared changes between two Git refs and their downstream effect.

Registered through the ``streamt`` entry-point group. The command module is imported only when
``impact`` runs (or its own ``--help`` is asked for): ``streamt --help`` pays for none of it.
E510 (a Git ref or the files at it could not be read safely) is this distribution's code.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import ErrorCode, hookimpl

from streamt_impact.codes import GIT_READ_FAILED

COMMAND = ("streamt_impact.command:impact_command", "Explain the downstream impact of changes between Git refs.")


@hookimpl
def streamt_error_codes() -> list[ErrorCode]:
    return [GIT_READ_FAILED]


@hookimpl
def streamt_commands(cli: Any) -> None:
    cli.add_lazy_command("impact", *COMMAND)
