"""``state init`` and ``state migrate-postgres-v2``: the owner's administrative mutations.

Both follow one shape: connect with the owner DSN, prove a standalone
primary, take the schema-scoped session advisory lock (and, for migration,
every registered address lock) under one bounded deadline, mutate in one
serializable transaction that re-verifies its own result before ``COMMIT``,
verify the postimage through a fresh connection, then release the locks. A
verified commit whose release fails is ``E426`` with ``committed: true``.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from streamt_postgres_state import catalog, db, rows
from streamt_postgres_state.config import Settings, resolve
from streamt_postgres_state.errors import invalid, release_failed, unavailable, unknown_outcome
from streamt_postgres_state.txn import begin_serializable, commit, failed_statement, rollback_quietly, translated


class _Held:
    """The locks one administrative session holds, and whether it committed."""

    def __init__(self) -> None:
        self.address_keys: list[int] = []
        self.committed = False


@contextlib.contextmanager
def _admin_session(settings: Settings, dsn: str) -> Iterator[tuple[Any, float, _Held]]:
    conn = db.connect(dsn, purpose="admin")
    held = _Held()
    deadline = time.monotonic() + settings.lock_timeout_seconds
    try:
        cur = conn.cursor()
        with translated(failed_statement):
            db.require_primary(cur)
            db.acquire_schema_lock(cur, settings.schema, deadline, settings.lock_timeout_seconds)
        yield cur, deadline, held
    except BaseException:
        # The original failure wins; closing the session drops its locks anyway.
        db.close_quietly(conn)
        raise
    released = _release(conn, settings.schema, held.address_keys)
    db.close_quietly(conn)
    if not released:
        if held.committed:
            raise release_failed()
        raise unavailable("The PostgreSQL deployment-state lock could not be released.")


def _release(conn: Any, schema: str, keys: list[int]) -> bool:
    try:
        with conn.cursor() as cur:
            results = [db.release_address_lock(cur, key) for key in keys]
            results.append(db.release_schema_lock(cur, schema))
        return all(results)
    except Exception:
        return False


def _transaction(cur: Any, held: _Held, body: Callable[[], str], no_op: str) -> str:
    """Run ``body`` in one serializable transaction; commit unless it reports the ``no_op`` outcome."""
    try:
        with translated(failed_statement):
            begin_serializable(cur)
            outcome = body()
        if outcome == no_op:
            rollback_quietly(cur)
        else:
            commit(cur)
            held.committed = True
    except BaseException:
        rollback_quietly(cur)
        raise
    return outcome


def _fresh_snapshot(dsn: str, schema: str, address: str) -> tuple[catalog.Catalog, rows.AddressRows | None]:
    """Re-read the committed result through a new connection; any failure leaves the outcome unknown."""
    try:
        conn = db.connect(dsn, purpose="verify")
    except Exception:
        raise unknown_outcome() from None
    try:
        with translated(unknown_outcome), db.snapshot(conn) as cur:
            found = catalog.verify(cur, schema)
            return found, rows.read_address(cur, schema, address)
    finally:
        db.close_quietly(conn)


def _result(outcome: str, found: catalog.Catalog, address: str) -> dict[str, Any]:
    from streamt.sdk import OperationControl

    return {
        "backend": "postgres",
        "outcome": outcome,
        "store_id": found.store_id,
        "schema_version": found.schema_version,
        "address": address,
        "state_status": "absent",
        "serial": 0,
        "operation_status": OperationControl().safe_status(),
        "ordinary_state_authority": found.authority,
        "mutation_status": found.mutation_status,
    }


# -- state init ---------------------------------------------------------------


def initialize(settings: Settings) -> dict[str, Any]:
    dsn = resolve(settings, "dsn_env")
    with _admin_session(settings, dsn) as (cur, _, held):
        outcome = _transaction(cur, held, lambda: _init_in_transaction(cur, settings), "already_initialized")
        found, address_rows = _fresh_snapshot(dsn, settings.schema, settings.address)
        if address_rows is None or address_rows.state is not None or address_rows.control.status != "clear":
            raise unknown_outcome()
    return _result(outcome, found, settings.address)


def _init_in_transaction(cur: Any, settings: Settings) -> str:
    schema = settings.schema
    if not catalog.schema_exists(cur, schema):
        from psycopg2 import sql

        cur.execute(sql.SQL("CREATE SCHEMA {}").format(catalog.ident(schema)))
        cur.execute(sql.SQL("REVOKE ALL ON SCHEMA {} FROM PUBLIC").format(catalog.ident(schema)))
        _create_v1(cur, schema, settings.address)
        outcome = "initialized"
    elif catalog.schema_is_empty(cur, schema):
        _require_owner(cur, schema)
        _create_v1(cur, schema, settings.address)
        outcome = "initialized"
    else:
        found = catalog.verify(cur, schema)
        _require_owner(cur, schema)
        existing = rows.read_address(cur, schema, settings.address)
        if existing is not None:
            if existing.state is not None or existing.control.status != "clear":
                raise invalid(
                    "The state address is already populated or has an operation marker.",
                    "Init never touches a populated address; inspect it with `streamt state status`.",
                )
            return "already_initialized"
        rows.verify_histories(cur, schema, found.store_id)
        rows.register(cur, schema, settings.address)
        outcome = "address_registered"
    # Pre-commit validation: what is about to be committed is an exact catalog.
    found = catalog.verify(cur, schema)
    rows.verify_histories(cur, schema, found.store_id)
    return outcome


def _create_v1(cur: Any, schema: str, address: str) -> None:
    from psycopg2 import sql

    catalog.create_tables(cur, schema)
    cur.execute(
        sql.SQL("INSERT INTO {} VALUES (true, 1, %s, %s)").format(catalog.ident(schema, "catalog_meta")),
        (str(uuid.uuid4()), rows.now()),
    )
    rows.register(cur, schema, address)


def _require_owner(cur: Any, schema: str) -> None:
    cur.execute(
        "SELECT n.nspowner = (SELECT oid FROM pg_catalog.pg_roles WHERE rolname = current_user)"
        " FROM pg_catalog.pg_namespace n WHERE n.nspname = %s",
        (schema,),
    )
    if not cur.fetchone()[0]:
        raise invalid(
            "The configured owner credential does not own the deployment-state schema.",
            "Run administrative state commands with the credential that owns the catalog.",
        )


# -- state migrate-postgres-v2 --------------------------------------------------

# A role mismatch is an operator input to check, not a damaged catalog: nothing was touched, so no restore.
_CHECK_WRITER_ROLE = (
    "Check the role held by the variable named by deployment_state.postgres.writer_role_env and pass exactly "
    "that value as --confirm-writer-role. Nothing was changed."
)


def migrate(settings: Settings, store_id: str, writer_role: str) -> dict[str, Any]:
    dsn = resolve(settings, "dsn_env")
    if resolve(settings, "writer_role_env") != writer_role:
        raise invalid(
            "--confirm-writer-role does not match the role named through deployment_state.postgres.writer_role_env.",
            _CHECK_WRITER_ROLE,
        )
    with _admin_session(settings, dsn) as (cur, deadline, held):
        with translated(failed_statement), db.snapshot(cur.connection) as read:
            catalog.verify(read, settings.schema)
            keys = [key for _, key in _address_keys(read, settings.schema)]
        with translated(failed_statement):
            for key in keys:
                db.acquire_address_lock(cur, key, deadline, settings.lock_timeout_seconds)
                held.address_keys.append(key)
        outcome = _transaction(
            cur,
            held,
            lambda: _migrate_in_transaction(cur, settings.schema, store_id, writer_role, keys),
            "already_migrated",
        )
        found, _ = _fresh_snapshot(dsn, settings.schema, settings.address)
        if (found.schema_version, found.store_id, found.writer_role) != (2, store_id, writer_role):
            raise unknown_outcome()
    return {
        "backend": "postgres",
        "outcome": outcome,
        "store_id": found.store_id,
        "schema_version": 2,
        "ordinary_state_authority": found.authority,
        "mutation_status": found.mutation_status,
    }


def _address_keys(cur: Any, schema: str) -> list[tuple[str, int]]:
    from psycopg2 import sql

    query = sql.SQL("SELECT address, lock_key FROM {} ORDER BY lock_key")
    cur.execute(query.format(catalog.ident(schema, "lock_keys")))
    return [(a, k) for a, k in cur.fetchall()]


def _migrate_in_transaction(cur: Any, schema: str, store_id: str, writer_role: str, locked: list[int]) -> str:
    found = catalog.verify(cur, schema)
    if found.store_id != store_id:
        raise invalid("--confirm-store-id does not match the configured store.", "Copy it from `streamt state status`.")
    if found.schema_version == 2:
        if found.writer_role != writer_role:
            raise invalid(
                "The store is already bound to another writer role; rebinding is not supported.",
                "Check that the variable named by deployment_state.postgres.writer_role_env holds the role this "
                "store was migrated with. Nothing was changed.",
            )
        return "already_migrated"
    _require_owner(cur, schema)
    pairs = rows.verify_histories(cur, schema, found.store_id)
    if sorted(k for _, k in pairs) != sorted(locked):
        raise invalid("The registered addresses changed while their locks were taken.")
    for address, _ in pairs:
        current = rows.read_address(cur, schema, address)
        if current is None or current.control.status != "clear":
            raise invalid("An address has an unfinished operation; migration needs clear operation control.")
    _check_writer_role(cur, writer_role, found.owner)
    _bind_writer(cur, schema, writer_role)
    after = catalog.verify(cur, schema)
    if (after.schema_version, after.writer_role) != (2, writer_role):
        raise invalid("The migrated catalog does not verify.")
    return "migrated"


def _check_writer_role(cur: Any, role: str, owner: str) -> None:
    """The writer must already exist, log in, and hold no power beyond the grants given here."""
    cur.execute(
        "SELECT r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR r.rolbypassrls OR r.rolreplication"
        " OR NOT r.rolcanlogin OR r.rolname = %(owner)s OR pg_catalog.pg_has_role(r.oid, o.oid, 'MEMBER')"
        " FROM pg_catalog.pg_roles r, pg_catalog.pg_roles o WHERE r.rolname = %(role)s AND o.rolname = %(owner)s",
        {"role": role, "owner": owner},
    )
    row = cur.fetchone()
    if row is None or row[0]:
        raise invalid(
            "The writer role does not exist or is not a separate least-privilege login role.",
            "Provision a plain LOGIN role (not the owner, no superuser/createrole/createdb/bypassrls/replication).",
        )


def _bind_writer(cur: Any, schema: str, role: str) -> None:
    from psycopg2 import sql

    meta = catalog.ident(schema, "catalog_meta")
    cur.execute(sql.SQL("ALTER TABLE {} ADD COLUMN writer_role text").format(meta))
    cur.execute(sql.SQL("UPDATE {} SET schema_version = 2, writer_role = %s").format(meta), (role,))
    grantee = sql.Identifier(role)
    cur.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(catalog.ident(schema), grantee))
    for table, privileges in catalog.WRITER_TABLE_PRIVILEGES.items():
        cur.execute(
            sql.SQL("GRANT {} ON TABLE {} TO {}").format(
                sql.SQL(", ").join(sql.SQL(p) for p in sorted(privileges)), catalog.ident(schema, table), grantee
            )
        )
