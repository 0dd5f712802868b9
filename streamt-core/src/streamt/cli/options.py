"""Options shared by project commands: ``--project-dir/-p`` and ``--env/-e``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from streamt.result import CHANGES_PRESENT

project_dir_option = click.option(
    "--project-dir",
    "-p",
    default=".",
    envvar="STREAMT_PROJECT_DIR",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Project directory (env: STREAMT_PROJECT_DIR).",
)
env_option = click.option(
    "--env", "-e", "env", default=None, help="Target environment in multi-environment mode (env: STREAMT_ENV)."
)
project_dir_option.__doc__ = "The ``--project-dir/-p`` option (default ``.``, env ``STREAMT_PROJECT_DIR``)."
env_option.__doc__ = "The ``--env/-e`` option: the target environment (env ``STREAMT_ENV``)."


detailed_exitcode_option = click.option(
    "--detailed-exitcode",
    "detailed_exitcode",
    is_flag=True,
    help="Exit 0 when nothing would change, 2 when changes or blockers are present, 1 on error.",
)


quiet_option = click.option(
    "--quiet", "quiet", is_flag=True, help="No progress lines on stderr (the result is unchanged)."
)
quiet_option.__doc__ = "The ``--quiet`` flag: no progress lines on stderr (pass it to ``for_command``)."


def changes_exit(detailed_exitcode: bool, changes: bool) -> int | None:
    """The ``force_exit`` of a ``--detailed-exitcode`` command: ``CHANGES_PRESENT`` or 0; ``None`` without it."""
    if not detailed_exitcode:
        return None
    return CHANGES_PRESENT if changes else 0


def project_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Both ``--project-dir/-p`` and ``--env/-e``, as every project command takes them."""
    return project_dir_option(env_option(fn))
