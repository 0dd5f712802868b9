"""streamt plugin: PostgreSQL deployment state.

Registers the ``postgres`` state backend name so that projects selecting it
are recognised; the backend itself and the ``state init``,
``state migrate-postgres-v2`` and ``state lock-status`` commands arrive in a
later release (until then they fail with ``E904_NOT_IMPLEMENTED``).
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl
from streamt.capabilities import StateBackend


@hookimpl
def streamt_state_backends() -> list[Any]:
    return [
        StateBackend(
            name="postgres",
            description="PostgreSQL v1/v2 catalog with advisory locks",
            implemented=False,
        )
    ]


@hookimpl
def streamt_commands(cli: Any) -> None:
    from streamt.pending import pending_command

    state = cli.add_group("state", "Inspect and administer deployment state.")
    for name, help_text in (
        ("init", "Initialize configured PostgreSQL state"),
        ("migrate-postgres-v2", "Migrate PostgreSQL state to schema v2"),
        ("lock-status", "Probe PostgreSQL lock availability"),
    ):
        state.add_command(pending_command(f"state {name}", "streamt-postgres-state", help_text))
