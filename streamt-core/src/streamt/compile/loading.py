"""From a project directory to a compiled project: load, validate, compile.

Compile, build, plan and every exporter start here, so they all see the same
project the same way: a validation error stops them before any artifact is
produced, and validation warnings ride along on the result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from streamt.collector import collector_paused
from streamt.compile.engine import CompiledProject, compile_project
from streamt.errors import Diagnostic, StreamtError


@attrs.frozen
class Loaded:
    """A compiled project together with what loading and validation reported.

    * ``project`` — the loaded ``Project``; ``compiled`` — its ``CompiledProject``.
    * ``warnings`` — validation warnings, to return on the command's ``Result``.
    """

    project: Any
    compiled: CompiledProject
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def root(self) -> Path:
        """The project directory."""
        return Path(self.project.root)


def load_and_compile(project_dir: str | Path, env: str | None, lazy_secrets: bool = False) -> Loaded:
    """Load ``project_dir`` for ``env``, validate it and compile it (no file is written).

    ``lazy_secrets``: the command never connects, so unset secret variables stay ``${NAME}`` text
    (``load_project``).
    """
    from streamt.project.loader import load_project

    with collector_paused():
        return validate_and_compile(load_project(project_dir, env, lazy_secrets=lazy_secrets))


def validate_and_compile(project: Any) -> Loaded:
    """Validate and compile an already loaded project (apply checks policy in between)."""
    from streamt.validation import validate_project

    report = validate_project(project)
    if report.errors:
        raise StreamtError.from_diagnostics(list(report.errors))
    return Loaded(project=project, compiled=compile_project(project), warnings=report.warnings)
