"""The owner-credential readers: ``state status`` and ``state lock-status``.

Both read one bounded repeatable-read, read-only snapshot with
``search_path`` pinned to ``pg_catalog``; neither writes a row. The lock
probe calls ``pg_try_advisory_xact_lock`` at most once, and its result is
returned only after the rollback that releases the probe succeeded.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import OperationControl, StreamtError

from streamt_postgres_state import catalog, db, rows
from streamt_postgres_state.config import Settings, resolve
from streamt_postgres_state.errors import unavailable
from streamt_postgres_state.txn import translated


def _read_failed() -> StreamtError:
    return unavailable("The PostgreSQL deployment-state store could not be read.")


def status(settings: Settings) -> dict[str, Any]:
    """Safe store, address, ownership and operation-control fields (never payloads)."""
    conn = db.connect(resolve(settings, "dsn_env"), purpose="status")
    try:
        with translated(_read_failed), db.snapshot(conn) as cur:
            if not catalog.schema_exists(cur, settings.schema):
                return _status(settings, None, None, "uninitialized")
            found = catalog.verify(cur, settings.schema)
            address_rows = rows.read_address(cur, settings.schema, settings.address)
    finally:
        db.close_quietly(conn)
    if address_rows is None:
        return _status(settings, found, None, "unregistered")
    return _status(settings, found, address_rows, "present" if address_rows.state else "absent")


def _status(
    settings: Settings, found: catalog.Catalog | None, address_rows: rows.AddressRows | None, state_status: str
) -> dict[str, Any]:
    state = address_rows.state if address_rows else None
    control = address_rows.control if address_rows else OperationControl()
    return {
        "backend": "postgres",
        "store_id": found.store_id if found else None,
        "schema_version": found.schema_version if found else None,
        "address": settings.address,
        "state_status": state_status,
        "serial": state.serial if state else 0,
        "checksum": state.checksum if state else None,
        "operation_status": control.safe_status(),
        "mutation_status": found.mutation_status if found else catalog.DISABLED,
        "ordinary_state_authority": found.authority if found else catalog.DISABLED,
    }


def lock_status(settings: Settings) -> dict[str, Any]:
    conn = db.connect(resolve(settings, "dsn_env"), purpose="lock-status")
    try:
        with translated(_read_failed):
            db.require_primary(conn.cursor())
            with db.snapshot(conn) as cur:
                found = catalog.verify(cur, settings.schema)
                address_rows = rows.read_address(cur, settings.schema, settings.address)
                if address_rows is None:
                    lock = "unregistered"
                else:
                    cur.execute("SELECT pg_try_advisory_xact_lock(%s)", (address_rows.lock_key,))
                    lock = "available" if cur.fetchone()[0] else "busy"
    finally:
        db.close_quietly(conn)
    return {
        "backend": "postgres",
        "store_id": found.store_id,
        "address": settings.address,
        "lock_status": lock,
        "reservation": "none",
        "ordinary_state_authority": "not_verified",
    }
