"""Options shared by project commands: ``--project-dir/-p`` and ``--env/-e``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

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


def project_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Both ``--project-dir/-p`` and ``--env/-e``, as every project command takes them."""
    return project_dir_option(env_option(fn))
