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


def project_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    return project_dir_option(env_option(fn))
