"""The catalog: seven tables, their exact shape and ACL contract, and its verification.

One table spec drives both the DDL ``state init`` runs and the shape every
command verifies, so the two cannot drift. Verification is exact: a missing
or extra table, column, index, sequence, view, function, type, trigger or
policy, a second owner, or any ACL outside the contract fails closed with
``E411``; nothing is repaired. All queries are schema-qualified because the
callers pin ``search_path`` to ``pg_catalog``.
"""

from __future__ import annotations

import uuid
from typing import Any

import attrs

from streamt_postgres_state.errors import invalid

# (column, type as format_type() spells it, NOT NULL), then constraints.
TABLES: dict[str, tuple[tuple[tuple[str, str, bool], ...], tuple[str, ...]]] = {
    "catalog_meta": (
        (
            ("singleton", "boolean", True),
            ("schema_version", "integer", True),
            ("store_id", "uuid", True),
            ("created_at", "timestamp with time zone", True),
        ),
        ("PRIMARY KEY (singleton)", "CHECK (singleton)"),
    ),
    "addresses": (
        (("address", "text", True), ("registered_at", "timestamp with time zone", True)),
        ("PRIMARY KEY (address)",),
    ),
    "lock_keys": (
        (("lock_key", "bigint", True), ("address", "text", True)),
        ("PRIMARY KEY (lock_key)", "UNIQUE (address)", "FOREIGN KEY (address) REFERENCES {s}.addresses"),
    ),
    "ownership_state": (
        (
            ("address", "text", True),
            ("serial", "bigint", True),
            ("checksum", "text", True),
            ("document", "jsonb", True),
            ("updated_at", "timestamp with time zone", True),
        ),
        ("PRIMARY KEY (address)", "CHECK (serial > 0)", "FOREIGN KEY (address) REFERENCES {s}.addresses"),
    ),
    "ownership_history": (
        (
            ("address", "text", True),
            ("serial", "bigint", True),
            ("operation_id", "uuid", True),
            ("operation_kind", "text", True),
            ("previous_checksum", "text", False),
            ("state_checksum", "text", True),
            ("committed_at", "timestamp with time zone", True),
        ),
        ("PRIMARY KEY (address, serial)", "FOREIGN KEY (address) REFERENCES {s}.addresses"),
    ),
    "operation_control": (
        (
            ("address", "text", True),
            ("status", "text", True),
            ("operation_id", "uuid", False),
            ("document", "jsonb", True),
            ("updated_at", "timestamp with time zone", True),
        ),
        ("PRIMARY KEY (address)", "FOREIGN KEY (address) REFERENCES {s}.addresses"),
    ),
    "operation_history": (
        (
            ("address", "text", True),
            ("seq", "bigint", True),
            ("operation_id", "uuid", True),
            ("event", "text", True),
            ("status", "text", True),
            ("document_checksum", "text", True),
            ("recorded_at", "timestamp with time zone", True),
        ),
        ("PRIMARY KEY (address, seq)", "FOREIGN KEY (address) REFERENCES {s}.addresses"),
    ),
}
INDEXES = frozenset(
    {
        "catalog_meta_pkey",
        "addresses_pkey",
        "lock_keys_pkey",
        "lock_keys_address_key",
        "ownership_state_pkey",
        "ownership_history_pkey",
        "operation_control_pkey",
        "operation_history_pkey",
    }
)
# Version 2 binds the writer role in the metadata row.
V2_META_COLUMN = ("writer_role", "text", False)

# The writer's exact, non-grantable table privileges in version 2. It appends
# history and updates state/control rows; it never deletes or registers.
WRITER_TABLE_PRIVILEGES: dict[str, frozenset[str]] = {
    "catalog_meta": frozenset({"SELECT"}),
    "addresses": frozenset({"SELECT"}),
    "lock_keys": frozenset({"SELECT"}),
    "ownership_state": frozenset({"SELECT", "INSERT", "UPDATE"}),
    "ownership_history": frozenset({"SELECT", "INSERT"}),
    "operation_control": frozenset({"SELECT", "UPDATE"}),
    "operation_history": frozenset({"SELECT", "INSERT"}),
}

V2_AUTHORITY = "supported_for_v2_writer"
DISABLED = "disabled"


@attrs.frozen
class Catalog:
    """What a verified catalog says about itself."""

    store_id: str
    schema_version: int
    owner: str
    writer_role: str | None

    @property
    def authority(self) -> str:
        return V2_AUTHORITY if self.schema_version == 2 else DISABLED

    @property
    def mutation_status(self) -> str:
        return "catalog_ready" if self.schema_version == 2 else DISABLED


def ident(schema: str, table: str | None = None) -> Any:
    from psycopg2 import sql

    return sql.Identifier(schema) if table is None else sql.Identifier(schema, table)


def create_tables(cur: Any, schema: str) -> None:
    """The frozen version-1 tables, each with PUBLIC revoked."""
    from psycopg2 import sql

    for table, (columns, constraints) in TABLES.items():
        parts = [
            sql.SQL("{} {}{}").format(sql.Identifier(name), sql.SQL(type_), sql.SQL(" NOT NULL" if not_null else ""))
            for name, type_, not_null in columns
        ]
        parts += [sql.SQL(c).format(s=ident(schema)) for c in constraints]
        cur.execute(sql.SQL("CREATE TABLE {} ({})").format(ident(schema, table), sql.SQL(", ").join(parts)))
        cur.execute(sql.SQL("REVOKE ALL ON TABLE {} FROM PUBLIC").format(ident(schema, table)))


def schema_exists(cur: Any, schema: str) -> bool:
    cur.execute("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = %s", (schema,))
    return cur.fetchone() is not None


def schema_is_empty(cur: Any, schema: str) -> bool:
    cur.execute(
        "SELECT (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid)"
        " + (SELECT count(*) FROM pg_catalog.pg_proc p WHERE p.pronamespace = n.oid)"
        " + (SELECT count(*) FROM pg_catalog.pg_type t WHERE t.typnamespace = n.oid)"
        " FROM pg_catalog.pg_namespace n WHERE n.nspname = %s",
        (schema,),
    )
    return cur.fetchone()[0] == 0


def verify(cur: Any, schema: str) -> Catalog:
    """The exact catalog in ``schema`` (version 1 or 2), or ``E411``."""
    owner = _verify_objects(cur, schema)
    version, store_id, writer_role = _read_meta(cur, schema)
    _verify_columns(cur, schema, version)
    _verify_acls(cur, schema, owner, writer_role)
    return Catalog(store_id=store_id, schema_version=version, owner=owner, writer_role=writer_role)


def _verify_objects(cur: Any, schema: str) -> str:
    cur.execute(
        "SELECT n.oid, pg_catalog.pg_get_userbyid(n.nspowner) FROM pg_catalog.pg_namespace n WHERE n.nspname = %s",
        (schema,),
    )
    row = cur.fetchone()
    if row is None:
        raise invalid("The PostgreSQL deployment-state catalog is not initialized.", "Run `streamt state init`.")
    oid, owner = row
    cur.execute(
        "SELECT c.relname, c.relkind, pg_catalog.pg_get_userbyid(c.relowner), c.relrowsecurity"
        " FROM pg_catalog.pg_class c WHERE c.relnamespace = %s",
        (oid,),
    )
    tables, indexes = set(), set()
    for name, kind, rel_owner, row_security in cur.fetchall():
        if kind == "r" and not row_security:
            tables.add(name)
        elif kind == "i":
            indexes.add(name)
        else:
            raise invalid("The deployment-state catalog contains an unexpected object.")
        if rel_owner != owner:
            raise invalid("The deployment-state catalog objects do not share one owner.")
    if tables != set(TABLES) or indexes != INDEXES:
        raise invalid("The deployment-state catalog has missing or extra tables or indexes.")
    cur.execute(
        "SELECT (SELECT count(*) FROM pg_catalog.pg_proc WHERE pronamespace = %(n)s)"
        " + (SELECT count(*) FROM pg_catalog.pg_type t WHERE t.typnamespace = %(n)s AND t.typrelid = 0"
        "    AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_type e WHERE e.oid = t.typelem AND e.typrelid <> 0))"
        " + (SELECT count(*) FROM pg_catalog.pg_trigger g JOIN pg_catalog.pg_class c ON c.oid = g.tgrelid"
        "    WHERE c.relnamespace = %(n)s AND NOT g.tgisinternal)"
        " + (SELECT count(*) FROM pg_catalog.pg_policy p JOIN pg_catalog.pg_class c ON c.oid = p.polrelid"
        "    WHERE c.relnamespace = %(n)s)"
        " + (SELECT count(*) FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class c ON c.oid = r.ev_class"
        "    WHERE c.relnamespace = %(n)s)",
        {"n": oid},
    )
    if cur.fetchone()[0]:
        raise invalid("The deployment-state catalog contains an unexpected object.")
    return str(owner)


def binds_no_writer(cur: Any, schema: str) -> bool:
    """Whether ``schema`` holds a catalog without a writer binding (version 1), read from pg_catalog only:
    a writer role that a version-1 catalog grants nothing can still tell it needs the migration."""
    cur.execute(
        "SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND c.relname = 'catalog_meta'",
        (schema,),
    )
    return bool(cur.fetchone()[0]) and not _has_writer_column(cur, schema)


def _has_writer_column(cur: Any, schema: str) -> bool:
    cur.execute(
        "SELECT count(*) FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid"
        " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND c.relname = 'catalog_meta' AND a.attname = 'writer_role' AND NOT a.attisdropped",
        (schema,),
    )
    return bool(cur.fetchone()[0])


def _read_meta(cur: Any, schema: str) -> tuple[int, str, str | None]:
    from psycopg2 import sql

    has_writer = _has_writer_column(cur, schema)
    writer = sql.SQL(", writer_role" if has_writer else ", NULL::text")
    cur.execute(
        sql.SQL("SELECT schema_version, store_id::text{} FROM {}").format(writer, ident(schema, "catalog_meta"))
    )
    rows = cur.fetchall()
    if len(rows) != 1:
        raise invalid("The deployment-state catalog metadata is missing or duplicated.")
    version, store_id, writer_role = rows[0]
    if version not in (1, 2) or str(uuid.UUID(store_id)) != store_id:
        raise invalid("The deployment-state catalog has an unsupported schema version.")
    if (version == 2) != has_writer or (version == 2 and not writer_role):
        raise invalid("The deployment-state catalog metadata does not match its schema version.")
    return int(version), str(store_id), writer_role


def _verify_columns(cur: Any, schema: str, version: int) -> None:
    cur.execute(
        "SELECT c.relname, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull"
        " FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid"
        " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped"
        " ORDER BY c.relname, a.attnum",
        (schema,),
    )
    actual: dict[str, list[tuple[str, str, bool]]] = {}
    for table, column, type_, not_null in cur.fetchall():
        actual.setdefault(table, []).append((column, type_, bool(not_null)))
    expected = {table: list(columns) for table, (columns, _) in TABLES.items()}
    if version == 2:
        expected["catalog_meta"].append(V2_META_COLUMN)
    if actual != expected:
        raise invalid("The deployment-state catalog columns do not match its schema version.")


def _verify_acls(cur: Any, schema: str, owner: str, writer_role: str | None) -> None:
    """PUBLIC has nothing; the owner its defaults; the writer exactly its set; others read only."""
    cur.execute(
        "SELECT 'schema', NULL, NULL, a.grantee, a.privilege_type, a.is_grantable"
        " FROM pg_catalog.pg_namespace n,"
        " LATERAL pg_catalog.aclexplode(coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))) a"
        " WHERE n.nspname = %(s)s"
        " UNION ALL SELECT 'table', c.relname, NULL, a.grantee, a.privilege_type, a.is_grantable"
        " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace,"
        " LATERAL pg_catalog.aclexplode(coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))) a"
        " WHERE n.nspname = %(s)s AND c.relkind = 'r'"
        " UNION ALL SELECT 'column', c.relname, t.attname, a.grantee, a.privilege_type, a.is_grantable"
        " FROM pg_catalog.pg_attribute t JOIN pg_catalog.pg_class c ON c.oid = t.attrelid"
        " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace,"
        " LATERAL pg_catalog.aclexplode(t.attacl) a"
        " WHERE n.nspname = %(s)s AND t.attacl IS NOT NULL",
        {"s": schema},
    )
    rows = cur.fetchall()
    cur.execute(
        "SELECT oid, rolname FROM pg_catalog.pg_roles WHERE rolname = ANY(%s)",
        ([owner, *([writer_role] if writer_role else [])],),
    )
    oids = {name: oid for oid, name in cur.fetchall()}
    owner_oid, writer_oid = oids.get(owner), oids.get(writer_role) if writer_role else None
    if writer_role and writer_oid is None:
        raise invalid("The bound writer role of the deployment-state catalog no longer exists.")
    defaults = _owner_defaults(cur, owner_oid)
    held: dict[tuple[str, str | None], set[str]] = {}
    owner_held: dict[tuple[str, str | None], set[str]] = {}
    for kind, table, column, grantee, privilege, grantable in rows:
        if grantee == 0:
            raise invalid("The deployment-state catalog grants privileges to PUBLIC.")
        if grantee == owner_oid:
            if column is None:
                owner_held.setdefault((kind, table), set()).add(privilege)
            continue
        if grantable:
            raise invalid("The deployment-state catalog has a grantable non-owner privilege.")
        if grantee == writer_oid and column is None:
            held.setdefault((kind, table), set()).add(privilege)
            continue
        allowed = "USAGE" if kind == "schema" else "SELECT"
        if privilege != allowed or grantee == writer_oid:
            raise invalid("The deployment-state catalog has a privilege outside its ACL contract.")
    expected_owner: dict[tuple[str, str | None], set[str]] = {("schema", None): defaults["n"]}
    expected_owner.update({("table", t): defaults["r"] for t in TABLES})
    if owner_held != expected_owner:
        raise invalid("The deployment-state catalog owner privileges were changed.")
    if writer_oid is not None:
        expected: dict[tuple[str, str | None], set[str]] = {("schema", None): {"USAGE"}}
        expected.update({("table", t): set(p) for t, p in WRITER_TABLE_PRIVILEGES.items()})
        if held != expected:
            raise invalid("The writer privileges of the deployment-state catalog do not match the contract.")


def _owner_defaults(cur: Any, owner_oid: Any) -> dict[str, set[str]]:
    cur.execute(
        "SELECT k, a.privilege_type FROM unnest(ARRAY['n', 'r']) k,"
        ' LATERAL pg_catalog.aclexplode(pg_catalog.acldefault(k::"char", %s)) a WHERE a.grantee = %s',
        (owner_oid, owner_oid),
    )
    out: dict[str, set[str]] = {"n": set(), "r": set()}
    for kind, privilege in cur.fetchall():
        out[kind].add(privilege)
    return out
