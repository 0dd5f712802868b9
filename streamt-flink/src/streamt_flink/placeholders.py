"""Resolving the ``${VAR}`` placeholders a compiled Flink job keeps literal.

Compiled SQL never holds a secret: the JAAS line of a SASL connection carries the placeholder, and
the value is read in memory when the job is submitted, from the project's variables
(``Runtime.environment()``: ``.env``, ``.env.<env>``, then the process, dsl.md section 2.3). The
observer resolves the same statements once before any mutation, so a missing variable fails the plan
(``E502``) instead of stopping apply halfway with a recovery marker.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from streamt.sdk import Codes, StreamtError

_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def resolve_placeholders(statement: str, environ: Mapping[str, str]) -> str:
    """``${VAR}`` -> its value from ``environ``; a missing variable is ``E502`` naming it."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise StreamtError(
                Codes.E502_ENV_VAR_ERROR,
                f"Environment variable {name} is not set; the Flink job's connection options need it.",
                f"Set {name} in the project's .env (or .env.<env>) or export it where apply runs.",
            )
        return environ[name]

    return _PLACEHOLDER.sub(value, statement)


def project_variables(runtime: Any) -> Mapping[str, str]:
    """Where a job's ``${VAR}`` resolves: the project's variables, or the process environment for a
    runtime that is not a loaded project's (as ``Runtime.environment()`` itself falls back)."""
    environment = getattr(runtime, "environment", None)
    return environment() if callable(environment) else os.environ


def require_resolvable(artifact: Any, environ: Mapping[str, str]) -> None:
    """Fail with ``E502`` now if any statement of ``artifact`` names an unset variable."""
    for statement in artifact.spec.get("statements", []):
        resolve_placeholders(statement, environ)
