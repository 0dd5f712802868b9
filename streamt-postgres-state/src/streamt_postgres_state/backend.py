"""The ``postgres`` state backend: the core state protocol over a version-2 catalog.

Ordinary authority (``purpose="write"``) connects only through
``writer_dsn_env`` and proves, on every connection, a standalone primary,
the exact v2 catalog and ACL contract, and that the session *is* the bound
writer role. It never falls back to the owner DSN, to local or to empty
state. ``operation_lock()`` holds the address advisory lock on one dedicated
connection for the whole operation; every durable step runs on that
connection in one transaction that first re-checks the lock is still held,
so intent, progress, state, history and control change atomically.

``purpose="read"`` and ``"admin"`` serve ``state status``: the owner
credential, a read-only snapshot, any exact v1 or v2 catalog.
"""

from __future__ import annotations

import contextlib
import datetime
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import attrs
from streamt.sdk import (
    CLEAR,
    IN_PROGRESS,
    RECOVERY_REQUIRED,
    ActionProgress,
    OperationControl,
    OwnershipRecord,
    OwnershipState,
    StreamtError,
    canonical_json,
    sha256_checksum,
)

from streamt_postgres_state import catalog, db, reader, rows
from streamt_postgres_state.config import Settings, resolve
from streamt_postgres_state.errors import (
    conflict,
    invalid,
    lock_lost,
    recovery_required,
    release_failed,
    unavailable,
)
from streamt_postgres_state.txn import commit, failed_statement, rollback_quietly, translated

WRITE = "write"
T = TypeVar("T")


def _no_authority() -> StreamtError:
    return unavailable(
        "The PostgreSQL writer authority could not be proven.",
        "Ordinary state authority needs the exact v2 catalog, writer_dsn_env authenticating as the bound "
        "writer role, and a direct standalone primary; no fallback is used.",
    )


def _needs_v2() -> StreamtError:
    return unavailable(
        "Ordinary PostgreSQL state authority needs a version-2 catalog; this store is version 1.",
        "Run `streamt state migrate-postgres-v2 --confirm-store-id ID --confirm-writer-role ROLE` with the owner "
        "credential first (the store ID is in `streamt state status`).",
    )


class PostgresStateBackend:
    """Ownership state for one ``streamt-state://`` address in a PostgreSQL catalog."""

    name = "postgres"

    def __init__(self, settings: Settings, purpose: str) -> None:
        self.settings = settings
        self.purpose = purpose
        self._conn: Any = None  # the dedicated lock connection while operation_lock() is held
        self._lock_key: int | None = None
        self._store_id: str | None = None
        self._committed = False

    @property
    def address(self) -> str:
        return self.settings.address

    # -- connections --------------------------------------------------------

    def _connect_writer(self) -> Any:
        """A fresh writer connection whose authority is proven, with its address lock key."""
        if self.purpose != WRITE:
            raise unavailable("This command may not use ordinary PostgreSQL state authority.")
        conn = db.connect(resolve(self.settings, "writer_dsn_env"), purpose="writer")
        try:
            with translated(_no_authority):
                db.require_primary(conn.cursor())
                with db.snapshot(conn) as cur:
                    self._prove(cur)
        except BaseException:
            db.close_quietly(conn)
            raise
        return conn

    def _prove(self, cur: Any) -> None:
        if catalog.binds_no_writer(cur, self.settings.schema):
            raise _needs_v2()
        found = catalog.verify(cur, self.settings.schema)
        if found.schema_version != 2:
            raise _needs_v2()
        cur.execute("SELECT session_user, current_user")
        if tuple(cur.fetchone()) != (found.writer_role, found.writer_role):
            raise _no_authority()
        address_rows = rows.read_address(cur, self.settings.schema, self.address)
        if address_rows is None:
            raise invalid("The state address is not registered in the store.", "Run `streamt state init` first.")
        self._lock_key, self._store_id = address_rows.lock_key, found.store_id

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Any]:
        """A read-only snapshot: on the lock connection, or on a fresh one for this purpose."""
        if self._conn is not None:
            with translated(lambda: lock_lost(None)), db.snapshot(self._conn) as cur:
                yield cur
            return
        if self.purpose == WRITE:
            conn = self._connect_writer()
        else:
            conn = db.connect(resolve(self.settings, "dsn_env"), purpose="status")
        try:
            with translated(failed_statement), db.snapshot(conn) as cur:
                found = catalog.verify(cur, self.settings.schema)
                self._store_id = found.store_id
                yield cur
        finally:
            db.close_quietly(conn)

    def _address_rows(self, cur: Any) -> rows.AddressRows:
        found = rows.read_address(cur, self.settings.schema, self.address)
        if found is None:
            raise invalid("The state address is not registered in the store.", "Run `streamt state init` first.")
        return found

    # -- reading --------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """Safe metadata for ``state status`` and plan output (no payloads, no endpoints)."""
        if self.purpose != WRITE:
            return reader.status(self.settings)
        with self._reading() as cur:
            found = catalog.verify(cur, self.settings.schema)
            current = self._address_rows(cur)
        return {
            "backend": self.name,
            "store_id": found.store_id,
            "schema_version": found.schema_version,
            "address": self.address,
            "state_status": "present" if current.state else "absent",
            "serial": current.state.serial if current.state else 0,
            "checksum": current.state.checksum if current.state else None,
            "operation_status": current.control.safe_status(),
            "mutation_status": found.mutation_status,
            "ordinary_state_authority": found.authority,
        }

    def read_state(self) -> OwnershipState | None:
        with self._reading() as cur:
            return self._address_rows(cur).state

    def read_control(self) -> OperationControl:
        with self._reading() as cur:
            return self._address_rows(cur).control

    # -- the operation protocol (call under operation_lock) -------------------

    @contextlib.contextmanager
    def operation_lock(self) -> Iterator[None]:
        if self._conn is not None:
            raise unavailable("The PostgreSQL state lock is already held by this command.")
        conn = self._connect_writer()
        key = self._lock_key
        assert key is not None  # set by the proof
        deadline = time.monotonic() + self.settings.lock_timeout_seconds
        try:
            with translated(lambda: lock_lost(None)):
                db.acquire_address_lock(conn.cursor(), key, deadline, self.settings.lock_timeout_seconds)
        except BaseException:
            db.close_quietly(conn)
            raise
        self._conn, self._committed = conn, False
        try:
            yield
        except BaseException:
            # The original failure wins; closing the session releases the lock with it.
            self._conn = None
            db.close_quietly(conn)
            raise
        self._conn = None
        released = _release(conn, key)
        db.close_quietly(conn)
        if not released:
            raise release_failed() if self._committed else lock_lost(None)

    def require_clear(self) -> OperationControl:
        control = self.read_control()
        if control.status != CLEAR:
            raise recovery_required(control, self.settings.env)
        return control

    def begin_operation(self, kind: str, actions: Sequence[dict[str, Any]]) -> OperationControl:
        """Record the durable intent before the first mutation."""

        def step(cur: Any) -> OperationControl:
            current = self._address_rows(cur)
            if current.control.status != CLEAR:
                raise recovery_required(current.control, self.settings.env)
            control = OperationControl(
                status=IN_PROGRESS,
                operation_id=str(uuid.uuid4()),
                operation_kind=kind,
                started_at=_now(),
                base_serial=current.state.serial if current.state else 0,
                actions=tuple(actions),
            )
            rows.write_control(cur, self.settings.schema, self.address, control, "begun", control.operation_id)
            return control

        return self._durably(step, None)

    def record_progress(self, control: OperationControl, index: int, outcome: str) -> OperationControl:
        return self.record_progress_many(control, [index], outcome)

    def record_progress_many(
        self, control: OperationControl, indexes: Sequence[int], outcome: str, evidence: dict[str, Any] | None = None
    ) -> OperationControl:
        """One transaction for a batch of actions that a batched request starts or ends together."""
        entries = tuple(ActionProgress(index, outcome, evidence) for index in indexes)
        updated = attrs.evolve(control, progress=(*control.progress, *entries))
        return self._transition(control, updated, "progress")

    def mark_recovery_required(self, control: OperationControl, failure_code: str) -> OperationControl:
        updated = attrs.evolve(control, status=RECOVERY_REQUIRED, failure_code=failure_code)
        return self._transition(control, updated, "recovery_required")

    def commit(self, control: OperationControl, records: Sequence[OwnershipRecord]) -> OwnershipState:
        """Advance the serial by one with ``records``, append history and clear control: one transaction."""

        def step(cur: Any) -> OwnershipState:
            current = self._own_marker(cur, control)
            serial = current.state.serial if current.state else 0
            if control.base_serial != serial:
                raise conflict("The ownership state changed while the operation ran.", control.operation_id)
            assert self._store_id is not None
            new_state = OwnershipState(
                store_id=self._store_id,
                address=self.address,
                serial=serial + 1,
                records=tuple(sorted(records, key=lambda r: r.resource_id)),
            )
            rows.write_state(cur, self.settings.schema, current.state, new_state, control)
            rows.write_control(
                cur, self.settings.schema, self.address, OperationControl(), "committed", control.operation_id
            )
            return new_state

        state = self._durably(step, control.operation_id)
        self._committed = True
        return state

    # -- reviewed recovery (see docs/state-recovery.md and docs/state-postgres.md) --

    def read_recovery(self, recovery_operation_id: str) -> dict[str, Any] | None:
        """The durable recovery-history entry of one recovery operation, if it was committed.

        It is rebuilt from the two ``operation_history`` events that the
        recovery commit appended together (see ``rows.write_recovery``).
        """
        with self._reading() as cur:
            return rows.read_recovery(cur, self.settings.schema, self.address, recovery_operation_id)

    # -- completion receipts of reviewed runtime replacements --------------------

    def write_receipt(self, operation_id: str, document: dict[str, Any]) -> None:
        """Append the receipt event once; an identical retry writes nothing, a different receipt is E424."""
        checksum = sha256_checksum(canonical_json(document))

        def step(cur: Any) -> None:
            found = rows.receipt_checksums(cur, self.settings.schema, self.address, operation_id)
            if found == [checksum]:
                return
            if found:
                raise conflict("Another receipt with this operation id is already recorded.", operation_id)
            rows.write_receipt(cur, self.settings.schema, self.address, operation_id, checksum)

        self._durably(step, operation_id)

    def has_receipt(self, operation_id: str, document: dict[str, Any]) -> bool:
        """Exactly this receipt is recorded for ``operation_id`` (read-only)."""
        with self._reading() as cur:
            found = rows.receipt_checksums(cur, self.settings.schema, self.address, operation_id)
        return found == [sha256_checksum(canonical_json(document))]

    def verify_lock(self) -> None:
        """``E423`` unless the dedicated lock connection is alive and still holds the address lock."""
        conn, key = self._conn, self._lock_key
        if conn is None or key is None:
            raise lock_lost(None)
        held = False
        with contextlib.suppress(Exception), conn.cursor() as cur:
            held = db.holds_address_lock(cur, key)
        if not held:
            raise lock_lost(None)

    def commit_recovery(
        self, entry: dict[str, Any], prior_checksum: str | None, candidate: OwnershipState | None
    ) -> OwnershipState | None:
        """One transaction: ``candidate`` (with its ownership history), the cleared marker and the recovery events.

        PostgreSQL needs no resumable sequence: either everything is committed
        or nothing is. An identical recovery already in history is accepted
        without writing; anything else that moved since the review is E424.
        """
        blocked = str(entry["blocked_operation_id"])
        rows.check_recovery_entry(entry)

        def step(cur: Any) -> OwnershipState | None:
            current = self._address_rows(cur)
            recorded = rows.read_recovery(cur, self.settings.schema, self.address, entry["recovery_operation_id"])
            if recorded is not None:
                if recorded != entry:
                    raise conflict("A different recovery with this operation id is already recorded.", blocked)
                return current.state
            if current.control.status == CLEAR or current.control.operation_id != blocked:
                raise conflict("The operation-control marker belongs to another operation.", blocked)
            checksum = current.state.checksum if current.state else None
            if checksum != prior_checksum:
                raise conflict("The ownership state changed after the recovery was reviewed.", blocked)
            result = current.state
            if candidate is not None:
                serial = current.state.serial if current.state else 0
                if (candidate.address, candidate.store_id) != (self.address, self._store_id):
                    raise invalid("The reviewed candidate state belongs to another store or address.")
                if candidate.serial != serial + 1:
                    raise conflict("The reviewed candidate state does not follow the current serial.", blocked)
                rows.write_state(cur, self.settings.schema, current.state, candidate, current.control)
                result = candidate
            if entry["state_checksum"] != (result.checksum if result else None):
                raise invalid("The recovery entry does not match the state it would leave.")
            rows.write_control(cur, self.settings.schema, self.address, OperationControl(), "recovered", blocked)
            rows.write_recovery(cur, self.settings.schema, self.address, entry)
            return result

        state = self._durably(step, blocked)
        self._committed = True
        return state

    # -- durable steps ------------------------------------------------------------

    def _transition(self, control: OperationControl, updated: OperationControl, event: str) -> OperationControl:
        def step(cur: Any) -> OperationControl:
            self._own_marker(cur, control)
            rows.write_control(cur, self.settings.schema, self.address, updated, event, control.operation_id)
            return updated

        return self._durably(step, control.operation_id)

    def _own_marker(self, cur: Any, control: OperationControl) -> rows.AddressRows:
        current = self._address_rows(cur)
        if current.control.operation_id != control.operation_id or current.control.status == CLEAR:
            raise conflict("The operation-control marker belongs to another operation.", control.operation_id)
        return current

    def _durably(self, step: Callable[[Any], T], operation_id: str | None) -> T:
        """Run ``step`` in one transaction on the lock connection, after re-checking the lock."""
        psycopg2 = db.driver()
        conn, key = self._conn, self._lock_key
        if conn is None or key is None:
            raise lock_lost(operation_id)
        cur = conn.cursor()
        try:
            cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            cur.execute("SET LOCAL search_path = pg_catalog")
            if not db.holds_address_lock(cur, key):
                raise lock_lost(operation_id)
            result = step(cur)
        except psycopg2.Error:
            rollback_quietly(cur)
            raise lock_lost(operation_id) if conn.closed else failed_statement() from None
        except BaseException:
            rollback_quietly(cur)
            raise
        commit(cur, operation_id)
        return result


def _release(conn: Any, key: int) -> bool:
    try:
        with conn.cursor() as cur:
            return db.release_address_lock(cur, key)
    except Exception:
        return False


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def factory(*, project: Any, project_dir: Any, purpose: str) -> PostgresStateBackend:
    """Construct without connecting; configuration errors surface here, values at first use."""
    from streamt_postgres_state.config import settings_for

    del project_dir  # PostgreSQL state lives in the catalog, never under the project
    return PostgresStateBackend(settings_for(project), purpose)
