"""``state init``, ``state migrate-postgres-v2`` and ``state lock-status``.

Confirmations are checked before anything is constructed or connected;
migration's are even checked before the project is parsed. Messages never
echo a confirmation value that did not match, nor a role, DSN or schema.
"""

from __future__ import annotations

import uuid
from typing import Any

import click
from streamt.sdk import Result, project_options, shown

from streamt_postgres_state.errors import invalid

_MAX_IDENTIFIER_BYTES = 63


def _settings(project_dir: str, env: str | None) -> Any:
    from streamt.sdk import load_project

    from streamt_postgres_state.config import settings_for

    return settings_for(load_project(project_dir, env))


def _lines(data: dict[str, Any], fields: tuple[tuple[str, str], ...]) -> str:
    return "\n".join(f"  {label + ':':<28} {shown(data[key])}" for key, label in fields)


@click.command("init")
@project_options
@click.option("--confirm-project", default=None, help="Exact parsed project name.")
@click.option("--confirm-env", default=None, help="Exact effective environment, including default.")
@click.option("--confirm-address", default=None, help="Exact streamt-state://<namespace>/<project>/<env> address.")
def init_command(
    project_dir: str, env: str | None, confirm_project: str | None, confirm_env: str | None, confirm_address: str | None
) -> Result:
    """Initialize configured PostgreSQL state or register this address."""
    from streamt.sdk import load_project

    from streamt_postgres_state import admin
    from streamt_postgres_state.config import settings_for

    if not (confirm_project and confirm_env and confirm_address):
        raise invalid(
            "state init needs --confirm-project, --confirm-env and --confirm-address.",
            "Pass the exact project name, effective environment and state address.",
        )
    project = load_project(project_dir, env)
    if confirm_project != project.name or confirm_env != project.env:
        raise invalid("--confirm-project or --confirm-env does not match the project.", "Pass the exact values.")
    settings = settings_for(project)
    if confirm_address != settings.address:
        raise invalid("--confirm-address does not match the configured state address.", "Pass the exact address.")
    data = admin.initialize(settings)
    text = f"✓ PostgreSQL deployment state {data['outcome']}\n" + _lines(
        data,
        (
            ("store_id", "Store ID"),
            ("schema_version", "Schema version"),
            ("address", "Address"),
            ("state_status", "Ownership state"),
            ("ordinary_state_authority", "Ordinary state authority"),
        ),
    )
    return Result("state init", data=data, text=text + "\n  Operation status:          clear")


def _check_migration_confirmations(store_id: str | None, writer_role: str | None) -> None:
    if not store_id or not writer_role:
        raise invalid(
            "state migrate-postgres-v2 needs --confirm-store-id and --confirm-writer-role.",
            "Pass the store ID from `streamt state status` and the writer role.",
        )
    try:
        canonical = str(uuid.UUID(store_id)) == store_id
    except ValueError:
        canonical = False
    if not canonical:
        raise invalid("--confirm-store-id must be a canonical lower-case UUID.", "Copy it from `streamt state status`.")
    try:
        size = len(writer_role.encode("utf-8"))
    except UnicodeEncodeError:
        size = _MAX_IDENTIFIER_BYTES + 1
    if "\x00" in writer_role or size > _MAX_IDENTIFIER_BYTES:
        raise invalid("--confirm-writer-role must be a NUL-free role name of at most 63 UTF-8 bytes.")


@click.command("migrate-postgres-v2")
@project_options
@click.option("--confirm-store-id", default=None, help="Exact canonical store UUID reported by state status.")
@click.option("--confirm-writer-role", default=None, help="Exact role resolved through postgres.writer_role_env.")
def migrate_command(
    project_dir: str, env: str | None, confirm_store_id: str | None, confirm_writer_role: str | None
) -> Result:
    """Migrate configured PostgreSQL state to schema v2 and bind the writer role."""
    from streamt_postgres_state import admin

    _check_migration_confirmations(confirm_store_id, confirm_writer_role)
    assert confirm_store_id is not None and confirm_writer_role is not None
    data = admin.migrate(_settings(project_dir, env), confirm_store_id, confirm_writer_role)
    text = f"✓ PostgreSQL deployment state {data['outcome']}\n" + _lines(
        data,
        (
            ("store_id", "Store ID"),
            ("schema_version", "Schema version"),
            ("mutation_status", "Catalog mutation readiness"),
            ("ordinary_state_authority", "Ordinary state authority"),
        ),
    )
    return Result("state migrate-postgres-v2", data=data, text=text)


@click.command("lock-status")
@project_options
def lock_status_command(project_dir: str, env: str | None) -> Result:
    """Probe instantaneous PostgreSQL lock availability (reserves nothing)."""
    from streamt_postgres_state import reader

    data = reader.lock_status(_settings(project_dir, env))
    text = f"Lock {data['lock_status']} at {data['address']}\n" + _lines(
        data,
        (
            ("store_id", "Store ID"),
            ("reservation", "Reservation"),
            ("ordinary_state_authority", "Ordinary state authority"),
        ),
    )
    return Result("state lock-status", data=data, text=text + "\n  The probe is instantaneous and authorizes nothing.")
