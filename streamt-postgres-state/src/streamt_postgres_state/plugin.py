"""streamt plugin: PostgreSQL deployment state.

Registers the ``postgres`` state backend and the administrative commands
``state init``, ``state migrate-postgres-v2`` and ``state lock-status``.
Kept import-light: the CLI loads every plugin to build ``--help``, so
psycopg2 and the command modules are imported only when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamt.sdk import StateBackendRegistration as StateBackend
from streamt.sdk import hookimpl

if TYPE_CHECKING:
    from streamt.sdk import ConfigSection

_COMMANDS = {
    "init": ("streamt_postgres_state.commands:init_command", "Initialize configured PostgreSQL state."),
    "migrate-postgres-v2": (
        "streamt_postgres_state.commands:migrate_command",
        "Migrate configured PostgreSQL state to schema v2.",
    ),
    "lock-status": ("streamt_postgres_state.commands:lock_status_command", "Probe PostgreSQL lock availability."),
}


def _factory(*, project: Any, project_dir: Any, purpose: str) -> Any:
    from streamt_postgres_state.backend import factory

    return factory(project=project, project_dir=project_dir, purpose=purpose)


@hookimpl
def streamt_state_backends() -> list[StateBackend]:
    return [
        StateBackend(
            name="postgres",
            description="PostgreSQL v1/v2 catalog with advisory locks",
            factory=_factory,
        )
    ]


@hookimpl
def streamt_commands(cli: Any) -> None:
    state = cli.add_group("state", "Inspect and administer deployment state.")
    for name, (path, help_text) in _COMMANDS.items():
        state.add_lazy_command(name, path, help_text)


@hookimpl
def streamt_config_sections() -> list[ConfigSection]:
    from streamt_postgres_state.config import SECTION

    return [SECTION]
