"""Row-level reads, checks and writes of one catalog (callers own the transaction).

The documents stored in ``ownership_state.document`` and
``operation_control.document`` are the core ``OwnershipState`` /
``OperationControl`` documents with their own checksums, so a row edited
outside streamt is refused exactly as a hand-edited local file is.
"""

from __future__ import annotations

import datetime
import json
import re
import uuid
from typing import Any

import attrs
from streamt.sdk import CLEAR, OperationControl, OwnershipState, sha256_checksum

from streamt_postgres_state.catalog import ident
from streamt_postgres_state.db import address_lock_key
from streamt_postgres_state.errors import invalid

_ADDRESS_PREFIX = "streamt-state://"


@attrs.frozen
class AddressRows:
    """The rows of one registered address, verified."""

    lock_key: int
    state: OwnershipState | None
    control: OperationControl


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def document_checksum(document: dict[str, Any]) -> str:
    return sha256_checksum(json.dumps(document, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def read_address(cur: Any, schema: str, address: str) -> AddressRows | None:
    """The verified rows of ``address``, or ``None`` when it is not registered."""
    from psycopg2 import sql

    cur.execute(
        sql.SQL(
            "SELECT k.lock_key, s.serial, s.checksum, s.document, c.status, c.operation_id::text, c.document"
            " FROM {a} a LEFT JOIN {k} k USING (address) LEFT JOIN {s} s USING (address)"
            " LEFT JOIN {c} c USING (address) WHERE a.address = %s"
        ).format(
            a=ident(schema, "addresses"),
            k=ident(schema, "lock_keys"),
            s=ident(schema, "ownership_state"),
            c=ident(schema, "operation_control"),
        ),
        (address,),
    )
    row = cur.fetchone()
    if row is None:
        return None
    lock_key, serial, checksum, state_doc, status, operation_id, control_doc = row
    if lock_key != address_lock_key(address) or control_doc is None:
        raise invalid("The registered state address has an inconsistent lock key or operation control.")
    control = OperationControl.from_document(control_doc)
    if control.status != status or control.operation_id != operation_id:
        raise invalid("The operation-control row does not match its document.")
    state = None
    if state_doc is not None:
        state = OwnershipState.from_document(state_doc, address)
        if state.serial != serial or state.checksum != checksum:
            raise invalid("The ownership-state row does not match its document.")
    return AddressRows(lock_key=lock_key, state=state, control=control)


def verify_histories(cur: Any, schema: str, store_id: str) -> list[tuple[str, int]]:
    """Check every address's rows and history sequences; return ``(address, lock_key)`` pairs."""
    from psycopg2 import sql

    cur.execute(sql.SQL("SELECT address FROM {} ORDER BY address").format(ident(schema, "addresses")))
    addresses = [a for (a,) in cur.fetchall()]
    cur.execute(
        sql.SQL("SELECT count(*), count(DISTINCT address) FROM {}").format(ident(schema, "lock_keys")),
    )
    if tuple(cur.fetchone()) != (len(addresses), len(addresses)):
        raise invalid("The advisory-lock mappings do not match the registered addresses.")
    cur.execute(
        sql.SQL("SELECT address, count(*), coalesce(max(serial), 0), min(serial) FROM {} GROUP BY address").format(
            ident(schema, "ownership_history")
        )
    )
    history = {a: (n, top, low) for a, n, top, low in cur.fetchall()}
    cur.execute(
        sql.SQL("SELECT address, count(*), max(seq), min(seq) FROM {} GROUP BY address").format(
            ident(schema, "operation_history")
        )
    )
    events = {a: (n, top, low) for a, n, top, low in cur.fetchall()}
    if not set(history) <= set(addresses) or not set(events) <= set(addresses):
        raise invalid("The catalog history refers to an unregistered address.")
    pairs = []
    for address in addresses:
        if not address.startswith(_ADDRESS_PREFIX) or len(address[len(_ADDRESS_PREFIX) :].split("/")) != 3:
            raise invalid("The catalog holds a malformed state address.")
        rows = read_address(cur, schema, address)
        assert rows is not None  # listed above, in the same snapshot
        count, top, low = history.get(address, (0, 0, 1))
        serial = rows.state.serial if rows.state else 0
        if rows.state is not None and rows.state.store_id != store_id:
            raise invalid("The ownership state belongs to another store.")
        if count != top or low != 1 or top != serial:
            raise invalid("The ownership history sequence is incomplete or does not match the state serial.")
        count, top, low = events.get(address, (0, 0, 1))
        if count != top or low != 1:
            raise invalid("The operation history sequence is incomplete.")
        pairs.append((address, rows.lock_key))
    return pairs


def register(cur: Any, schema: str, address: str) -> None:
    """Register an empty address: its row, its collision-checked lock key and a clear control row."""
    from psycopg2 import sql

    key = address_lock_key(address)
    cur.execute(sql.SQL("SELECT address FROM {} WHERE lock_key = %s").format(ident(schema, "lock_keys")), (key,))
    if cur.fetchone() is not None:
        raise invalid(
            "The advisory-lock key of this address collides with a registered address.",
            "Choose another deployment_state.namespace; colliding addresses cannot share one store.",
        )
    stamp = now()
    cur.execute(sql.SQL("INSERT INTO {} VALUES (%s, %s)").format(ident(schema, "addresses")), (address, stamp))
    cur.execute(sql.SQL("INSERT INTO {} VALUES (%s, %s)").format(ident(schema, "lock_keys")), (key, address))
    control = OperationControl().to_document()
    cur.execute(
        sql.SQL("INSERT INTO {} VALUES (%s, %s, NULL, %s, %s)").format(ident(schema, "operation_control")),
        (address, CLEAR, json.dumps(control), stamp),
    )


def write_control(
    cur: Any, schema: str, address: str, control: OperationControl, event: str, operation_id: str | None
) -> None:
    """Replace the control row and append one operation-history event of ``operation_id``."""
    from psycopg2 import sql

    document = control.to_document()
    stamp = now()
    update = sql.SQL("UPDATE {} SET status = %s, operation_id = %s, document = %s, updated_at = %s WHERE address = %s")
    cur.execute(
        update.format(ident(schema, "operation_control")),
        (control.status, control.operation_id, json.dumps(document), stamp, address),
    )
    if cur.rowcount != 1:
        raise invalid("The operation-control row of this address is missing.")
    cur.execute(
        sql.SQL(
            "INSERT INTO {h} SELECT %s, coalesce(max(seq), 0) + 1, %s, %s, %s, %s, %s FROM {h} WHERE address = %s"
        ).format(h=ident(schema, "operation_history")),
        (address, operation_id, event, control.status, document["checksum"], stamp, address),
    )


def write_state(cur: Any, schema: str, previous: OwnershipState | None, state: OwnershipState, control: Any) -> None:
    """Upsert the ownership row and append its history entry."""
    from psycopg2 import sql

    stamp = now()
    document = state.to_document()
    cur.execute(
        sql.SQL(
            "INSERT INTO {} VALUES (%s, %s, %s, %s, %s) ON CONFLICT (address) DO UPDATE"
            " SET serial = EXCLUDED.serial, checksum = EXCLUDED.checksum, document = EXCLUDED.document,"
            " updated_at = EXCLUDED.updated_at"
        ).format(ident(schema, "ownership_state")),
        (state.address, state.serial, state.checksum, json.dumps(document), stamp),
    )
    cur.execute(
        sql.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s, %s)").format(ident(schema, "ownership_history")),
        (
            state.address,
            state.serial,
            control.operation_id,
            control.operation_kind,
            previous.checksum if previous else None,
            state.checksum,
            stamp,
        ),
    )


# -- recovery history ----------------------------------------------------------
#
# The frozen v1/v2 catalog has no recovery table, and catalog verification is
# exact, so a recovery is recorded as two consecutive ``operation_history``
# events written in the commit's transaction:
#
# * ``recovered`` — the control transition of the blocked operation, shaped
#   like ``committed`` (operation_id = blocked, status = clear, checksum of the
#   cleared control document);
# * ``recovery:<resolution>:<state checksum | absent>`` — operation_id = the
#   recovery operation, status = clear, document_checksum = evidence checksum.

RECOVERY_EVENT = "recovery"
RECOVERED_EVENT = "recovered"
_RESOLUTIONS = frozenset({"observed", "rolled_back", "abandoned_before_mutation"})
_CHECKSUM = re.compile(r"^sha256:[0-9a-f]{64}$")
_ABSENT = "absent"
_ENTRY_KEYS = frozenset(
    {"blocked_operation_id", "recovery_operation_id", "resolution", "evidence_checksum", "state_checksum"}
)


def _history_invalid() -> Exception:
    return invalid("A recovery history event is malformed.", "Do not edit history; restore the catalog from a backup.")


def _canonical_uuid(value: Any) -> bool:
    try:
        return str(uuid.UUID(str(value))) == value
    except ValueError:
        return False


def check_recovery_entry(entry: dict[str, Any]) -> None:
    """The exact shape ``write_recovery`` can store and ``read_recovery`` rebuild (E411 otherwise)."""
    state_checksum = entry.get("state_checksum")
    if (
        set(entry) != _ENTRY_KEYS
        or not _canonical_uuid(entry["blocked_operation_id"])
        or not _canonical_uuid(entry["recovery_operation_id"])
        or entry["resolution"] not in _RESOLUTIONS
        or not isinstance(entry["evidence_checksum"], str)
        or not _CHECKSUM.match(entry["evidence_checksum"])
        or not (state_checksum is None or (isinstance(state_checksum, str) and _CHECKSUM.match(state_checksum)))
    ):
        raise invalid("The recovery entry cannot be recorded exactly.", "Create fresh reviewed recovery evidence.")


def write_recovery(cur: Any, schema: str, address: str, entry: dict[str, Any]) -> None:
    """Append the recovery event right after the ``recovered`` transition (same transaction)."""
    from psycopg2 import sql

    check_recovery_entry(entry)
    state = entry["state_checksum"] or _ABSENT
    cur.execute(
        sql.SQL(
            "INSERT INTO {h} SELECT %s, coalesce(max(seq), 0) + 1, %s, %s, %s, %s, %s FROM {h} WHERE address = %s"
        ).format(h=ident(schema, "operation_history")),
        (
            address,
            entry["recovery_operation_id"],
            f"{RECOVERY_EVENT}:{entry['resolution']}:{state}",
            CLEAR,
            entry["evidence_checksum"],
            now(),
            address,
        ),
    )


def read_recovery(cur: Any, schema: str, address: str, recovery_operation_id: str) -> dict[str, Any] | None:
    """The recovery entry of ``recovery_operation_id`` rebuilt from its two events, or ``None``."""
    from psycopg2 import sql

    if not _canonical_uuid(recovery_operation_id):
        raise invalid("The recovery operation id is not a canonical UUID.", "Create fresh reviewed recovery evidence.")
    cur.execute(
        sql.SQL(
            "SELECT r.event, r.status, r.document_checksum, t.operation_id::text, t.event, t.status"
            " FROM {h} r LEFT JOIN {h} t ON t.address = r.address AND t.seq = r.seq - 1"
            " WHERE r.address = %s AND r.operation_id = %s::uuid AND r.event LIKE %s"
        ).format(h=ident(schema, "operation_history")),
        (address, recovery_operation_id, RECOVERY_EVENT + ":%"),
    )
    found = cur.fetchall()
    if not found:
        return None
    if len(found) != 1:
        raise _history_invalid()
    event, status, evidence_checksum, blocked, transition, transition_status = found[0]
    parts = event.split(":", 2)
    if (
        len(parts) != 3
        or (transition, transition_status, status) != (RECOVERED_EVENT, CLEAR, CLEAR)
        or not (parts[2] == _ABSENT or _CHECKSUM.match(parts[2]))
    ):
        raise _history_invalid()
    entry = {
        "blocked_operation_id": blocked,
        "recovery_operation_id": recovery_operation_id,
        "resolution": parts[1],
        "evidence_checksum": evidence_checksum,
        "state_checksum": None if parts[2] == _ABSENT else parts[2],
    }
    try:
        check_recovery_entry(entry)
    except Exception:
        raise _history_invalid() from None
    return entry


# -- completion receipts of reviewed runtime replacements ------------------------
#
# Like recoveries, a receipt is an ``operation_history`` event (the frozen catalog has no receipt
# table): event ``RECEIPT_EVENT``, the replacement's operation id, status ``clear`` and the SHA-256
# of the canonical receipt document. The lookup is exact: one event of that operation with that
# checksum.

RECEIPT_EVENT = "kafka_streams_replacement_receipt"


def receipt_checksums(cur: Any, schema: str, address: str, operation_id: str) -> list[str]:
    from psycopg2 import sql

    if not _canonical_uuid(operation_id):
        raise invalid("The operation id is not a canonical UUID.", "Pass the UUID the original apply returned.")
    cur.execute(
        sql.SQL(
            "SELECT document_checksum FROM {h} WHERE address = %s AND operation_id = %s::uuid AND event = %s"
            " ORDER BY seq"
        ).format(h=ident(schema, "operation_history")),
        (address, operation_id, RECEIPT_EVENT),
    )
    return [str(row[0]) for row in cur.fetchall()]


def write_receipt(cur: Any, schema: str, address: str, operation_id: str, checksum: str) -> None:
    from psycopg2 import sql

    cur.execute(
        sql.SQL(
            "INSERT INTO {h} SELECT %s, coalesce(max(seq), 0) + 1, %s, %s, %s, %s, %s FROM {h} WHERE address = %s"
        ).format(h=ident(schema, "operation_history")),
        (address, operation_id, RECEIPT_EVENT, CLEAR, checksum, now(), address),
    )
