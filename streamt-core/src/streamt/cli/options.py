"""Options shared by every command that reads a project.

One definition each, so that ``--project-dir`` / ``STREAMT_PROJECT_DIR`` and
``--env`` / ``STREAMT_ENV`` mean the same everywhere (the flag wins over the
variable, as the CLI reference says). Use them as decorators::

    @click.command("validate")
    @project_dir_option
    @env_option
    def validate(project_dir: str, env: str | None) -> Result: ...
"""

from __future__ import annotations

import click

PROJECT_DIR_VAR = "STREAMT_PROJECT_DIR"
ENV_VAR = "STREAMT_ENV"

# No `exists=True`: a missing directory is the project loader's error to
# report (E501_PARSE_ERROR naming stream_project.yml), not a usage error.
project_dir_option = click.option(
    "--project-dir",
    "project_dir",
    type=click.Path(file_okay=False),
    default=".",
    envvar=PROJECT_DIR_VAR,
    show_default=True,
    show_envvar=True,
    help="Project directory.",
)

env_option = click.option(
    "--env",
    "env",
    default=None,
    envvar=ENV_VAR,
    show_envvar=True,
    help="Target environment (multi-environment projects).",
)
