"""The PostgreSQL settings of one project environment, and resolving their named values.

``deployment_state.postgres`` is this plugin's section: core structures it
into ``PostgresState`` while loading (``${...}`` in it is kept as written) and
keeps it in ``project.deployment_state.sections["postgres"]``; ``check`` runs
during ``validate``. Its ``*_env`` fields hold the *names* of environment
variables. A value is read only when a command needs it, and a missing one
is an error that names the configuration field, never the variable, so that
nothing a user configured is echoed.
"""

from __future__ import annotations

import os
import re
from typing import Any

import attrs
from streamt.sdk import Codes, ConfigSection, Diagnostic, state_address

from streamt_postgres_state.errors import unavailable

DEFAULT_SCHEMA = "streamt"
_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


NAME = "postgres"
_NAME_FIELDS = ("dsn_env", "writer_dsn_env", "writer_role_env")
KEYS: dict[str, Any] = dict.fromkeys((*_NAME_FIELDS, "schema"))


@attrs.frozen(kw_only=True)
class PostgresState:
    """``deployment_state.postgres``: names of environment variables (never their values), and the schema."""

    dsn_env: str | None = None
    writer_dsn_env: str | None = None
    writer_role_env: str | None = None
    schema: str = DEFAULT_SCHEMA


def postgres_state(project: Any) -> PostgresState | None:
    """The project's ``deployment_state.postgres``, or ``None`` when it is not written."""
    value = project.deployment_state.section(NAME)
    return value if isinstance(value, PostgresState) else None


def check(postgres: PostgresState, _project: Any) -> list[Diagnostic]:
    """``*_env`` must be variable names: a value there is most likely the DSN, with its password (E501)."""
    out: list[Diagnostic] = []
    for field in _NAME_FIELDS:
        value = getattr(postgres, field)
        if value is not None and not _ENV_NAME.match(value):
            # Never repeat the value: it is most likely the DSN itself.
            out.append(
                Diagnostic(
                    Codes.E501_PARSE_ERROR,
                    f"deployment_state.postgres.{field} must name an environment variable "
                    "(letters, digits and '_'), not hold a value",
                    f"Export the DSN as a variable and write its name: {field}: STREAMT_STATE_DSN.",
                    None,
                )
            )
    return out


SECTION = ConfigSection(
    path=f"deployment_state.{NAME}", model=PostgresState, keys=KEYS, extra="postgres", check=check, interpolate=False
)


@attrs.frozen
class Settings:
    address: str
    schema: str
    lock_timeout_seconds: float
    dsn_env: str | None
    writer_dsn_env: str | None
    writer_role_env: str | None
    env: str | None = None  # the project environment, for the commands an error names


def settings_for(project: Any) -> Settings:
    """Checked settings for ``project`` (no environment value is read here)."""
    config = project.deployment_state
    if config.backend != "postgres":
        raise unavailable(
            "This command needs deployment_state.backend: postgres.",
            "Configure the PostgreSQL backend for this environment; local state has no catalog to administer.",
        )
    if not config.namespace:
        raise unavailable("deployment_state.namespace is required for the PostgreSQL backend.")
    pg = postgres_state(project)
    schema = (pg.schema if pg is not None else None) or DEFAULT_SCHEMA
    if not _IDENTIFIER.match(schema):
        # Lower-case plain identifiers only: the catalog is compared by exact name.
        raise unavailable("deployment_state.postgres.schema must be a lower-case SQL identifier.")
    names = {
        "dsn_env": pg.dsn_env if pg else None,
        "writer_dsn_env": pg.writer_dsn_env if pg else None,
        "writer_role_env": pg.writer_role_env if pg else None,
    }
    for field, name in names.items():
        if name is not None and not _ENV_NAME.match(name):
            raise unavailable(f"deployment_state.postgres.{field} must be an environment-variable name.")
    if names["writer_dsn_env"] is not None and names["writer_dsn_env"] == names["dsn_env"]:
        raise unavailable(
            "deployment_state.postgres.writer_dsn_env must differ from dsn_env.",
            "Ordinary state authority uses a separate least-privilege writer credential.",
        )
    return Settings(
        address=state_address(config.namespace, project.name, project.env),
        schema=schema,
        lock_timeout_seconds=float(config.lock_timeout_seconds),
        **names,
        env=project.env,
    )


def resolve(settings: Settings, field: str) -> str:
    """The value of the variable named by ``deployment_state.postgres.<field>``."""
    name = getattr(settings, field)
    if not name:
        raise unavailable(f"deployment_state.postgres.{field} is not configured.")
    value = os.environ.get(name)
    if not value:
        raise unavailable(f"The environment variable named by deployment_state.postgres.{field} is not set.")
    return value
