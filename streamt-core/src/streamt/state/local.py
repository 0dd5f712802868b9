"""The embedded ``local`` deployment-state backend.

Files, per environment, under ``<project>/.streamt/state/``:

* ``<env>.json`` — ownership state (serial, checksum, records);
* ``<env>.control.json`` — durable intent and ordered progress of the
  operation under way (absent means clear);
* ``<env>.history/<serial>.json`` — one immutable entry per committed serial
  (``interrupted-<serial>-<digest>.json``: the entry of a commit killed before its state file);
* ``<env>.lock`` — the same-host ``flock`` target.

A commit writes the history entry (exclusive create), then replaces the
state file, then clears the control sidecar, each step atomic. A crash
between steps leaves the control marker in place, which blocks further
mutation (``E419``) until reviewed recovery reconciles the three. This is
safe for one user on one machine only; shared CI should use PostgreSQL.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from streamt.artifacts import canonical_json
from streamt.boundary import boundary
from streamt.errors import Codes, StreamtError
from streamt.fsutil import atomic_write, create_exclusive, fsync_dir
from streamt.state.lock import exclusive_lock
from streamt.state.operations import next_steps, unfinished_operation_commands
from streamt.state.records import (
    CLEAR,
    IN_PROGRESS,
    RECOVERY_REQUIRED,
    ActionProgress,
    OperationControl,
    OwnershipRecord,
    OwnershipState,
    state_address,
)

DEFAULT_NAMESPACE = "local"
DEFAULT_LOCK_TIMEOUT_SECONDS = 30.0


def _read_json(path: Path, what: str) -> Any | None:
    raw = _read_bytes(path, what)
    return None if raw is None else _parse_json(raw, what)


def _read_bytes(path: Path, what: str) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        raise StreamtError(
            Codes.E420_STATE_BACKEND_UNAVAILABLE,
            f"The local {what} could not be read.",
            "Check the permissions of .streamt/state/.",
        ) from None


def _parse_json(raw: bytes, what: str) -> Any:
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise StreamtError(
            Codes.E411_STATE_INVALID,
            f"The local {what} is not valid JSON.",
            "Do not hand-edit state metadata; restore it from a backup.",
        ) from None


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@attrs.define
class LocalStateBackend:
    """Ownership state for one ``streamt-state://`` address, kept in files."""

    project_dir: Path
    project: str
    env: str
    namespace: str = DEFAULT_NAMESPACE
    lock_timeout_seconds: float = DEFAULT_LOCK_TIMEOUT_SECONDS
    # The state last parsed and the SHA-256 of the exact bytes it came from (not the bytes: ~3 MB at
    # 10,000 records). A plan reads the state twice (``status``, then ``read_state`` to compare), an
    # apply three or four times, and parsing and verifying a file costs ~0.05 s per 1,000 records.
    # Reused only for identical bytes: a file that changed in between is parsed and verified afresh.
    # States are frozen, so sharing one between reads is safe.
    _parsed: tuple[bytes, OwnershipState] | None = attrs.field(default=None, init=False, eq=False, repr=False)

    name = "local"

    @property
    def directory(self) -> Path:
        return Path(self.project_dir) / ".streamt" / "state"

    @property
    def state_path(self) -> Path:
        return self.directory / f"{self.env}.json"

    @property
    def control_path(self) -> Path:
        return self.directory / f"{self.env}.control.json"

    @property
    def lock_path(self) -> Path:
        return self.directory / f"{self.env}.lock"

    @property
    def history_dir(self) -> Path:
        return self.directory / f"{self.env}.history"

    @property
    def address(self) -> str:
        return state_address(self.namespace, self.project, self.env)

    # -- reading (never creates files) -------------------------------------

    def read_state(self) -> OwnershipState | None:
        raw = _read_bytes(self.state_path, "ownership state")
        if raw is None:
            return None
        digest = hashlib.sha256(raw).digest()
        if self._parsed is not None and self._parsed[0] == digest and self._parsed[1].address == self.address:
            return self._parsed[1]
        state = OwnershipState.from_document(_parse_json(raw, "ownership state"), self.address)
        self._parsed = (digest, state)
        return state

    def read_control(self) -> OperationControl:
        document = _read_json(self.control_path, "operation control sidecar")
        return OperationControl() if document is None else OperationControl.from_document(document)

    def status(self) -> dict[str, Any]:
        """Safe metadata for ``state status`` and plan output."""
        state = self.read_state()
        control = self.read_control()
        return {
            "backend": self.name,
            "store_id": state.store_id if state else None,
            "address": self.address,
            "state_status": "present" if state else "absent",
            "serial": state.serial if state else 0,
            "checksum": state.checksum if state else None,
            "operation_status": control.safe_status(),
        }

    # -- the operation protocol (call under operation_lock) ----------------

    @contextlib.contextmanager
    def operation_lock(self) -> Iterator[None]:
        with exclusive_lock(self.lock_path, self.lock_timeout_seconds):
            yield

    def require_clear(self) -> OperationControl:
        control = self.read_control()
        if control.status != CLEAR:
            raise StreamtError(
                Codes.E419_STATE_RECOVERY_REQUIRED,
                f"An unfinished operation ({control.status}) blocks changes to {self.env!r}.",
                "Keep .streamt/state/ as it is; run "
                f"{unfinished_operation_commands(control.operation_kind, control.operation_id, self.env)}.",
                details={"operation_id": control.operation_id},
                data={
                    "operation_id": control.operation_id,
                    "operation_kind": control.operation_kind,
                    "next_steps": next_steps(control.operation_kind, str(control.operation_id), self.env),
                },
            )
        return control

    def begin_operation(self, kind: str, actions: Sequence[dict[str, Any]]) -> OperationControl:
        """Record the durable intent before the first mutation."""
        self.require_clear()
        state = self.read_state()
        control = OperationControl(
            status=IN_PROGRESS,
            operation_id=str(uuid.uuid4()),
            operation_kind=kind,
            started_at=_now(),
            base_serial=state.serial if state else 0,
            actions=tuple(actions),
        )
        self._write_control(control)
        return control

    def record_progress(self, control: OperationControl, index: int, outcome: str) -> OperationControl:
        return self.record_progress_many(control, [index], outcome)

    def record_progress_many(
        self, control: OperationControl, indexes: Sequence[int], outcome: str, evidence: dict[str, Any] | None = None
    ) -> OperationControl:
        """One durable write for a batch of actions (a batched request starts or ends them together)."""
        entries = tuple(ActionProgress(index, outcome, evidence) for index in indexes)
        updated = attrs.evolve(control, progress=(*control.progress, *entries))
        self._write_control(updated)
        return updated

    def mark_recovery_required(self, control: OperationControl, failure_code: str) -> OperationControl:
        updated = attrs.evolve(control, status=RECOVERY_REQUIRED, failure_code=failure_code)
        self._write_control(updated)
        return updated

    def commit(self, control: OperationControl, records: Sequence[OwnershipRecord]) -> OwnershipState:
        """Advance the serial by one with ``records`` and clear the control marker."""
        current = self.read_state()
        serial = current.serial if current else 0
        if control.base_serial != serial:
            raise StreamtError(
                Codes.E424_STATE_CONFLICT,
                "The ownership state changed while the operation ran.",
                "Re-plan; do not replay the operation.",
                details={"operation_id": control.operation_id},
                data={"operation_id": control.operation_id},
            )
        new_state = OwnershipState(
            store_id=current.store_id if current else str(uuid.uuid4()),
            address=self.address,
            serial=serial + 1,
            records=tuple(sorted(records, key=lambda r: r.resource_id)),
        )
        self._install(control, current, new_state)
        return new_state

    def _install(self, control: OperationControl, current: OwnershipState | None, new_state: OwnershipState) -> None:
        """History entry (exclusive), then the state file, then clear the marker: each step atomic."""
        entry = {
            "serial": new_state.serial,
            "operation_id": control.operation_id,
            "operation_kind": control.operation_kind,
            "previous_checksum": current.checksum if current else None,
            "state_checksum": new_state.checksum,
            "committed_at": _now(),
        }
        self.history_dir.mkdir(parents=True, exist_ok=True)
        path = self.history_dir / f"{new_state.serial:010d}.json"
        data = canonical_json(entry) + b"\n"
        try:
            create_exclusive(path, data)
        except FileExistsError:
            if not self._set_aside_interrupted(path, current):
                raise self._serial_taken(control, new_state.serial) from None
            create_exclusive(path, data)
        boundary()
        atomic_write(self.state_path, canonical_json(new_state.to_document()) + b"\n", mode=0o600)
        boundary()
        self.clear(control)

    def _set_aside_interrupted(self, path: Path, current: OwnershipState | None) -> bool:
        """Move aside the history entry of a commit that was interrupted before its state file was installed.

        The state file is what commits a serial: an entry for the next serial written on top of the
        current state (its ``previous_checksum``) while the state file still holds that state was
        never committed, so a later commit of that serial (reviewed recovery's, or the next apply's
        after recovery) may take the name. The entry is kept as ``interrupted-<serial>-<digest>.json``
        beside the history, never deleted; ``False`` (and nothing moved) for any other entry.
        """
        try:
            existing = path.read_bytes()
            document = json.loads(existing)
        except (OSError, ValueError):
            return False
        checksum = current.checksum if current else None
        if (
            not isinstance(document, dict)
            or document.get("previous_checksum") != checksum
            or document.get("state_checksum") == checksum
        ):
            return False
        digest = hashlib.sha256(existing).hexdigest()[:16]
        os.replace(path, path.with_name(f"interrupted-{path.stem}-{digest}.json"))
        fsync_dir(path.parent)
        return True

    @staticmethod
    def _serial_taken(control: OperationControl, serial: int) -> StreamtError:
        return StreamtError(
            Codes.E424_STATE_CONFLICT,
            f"A history entry for serial {serial} already exists.",
            "Inspect `streamt state status`; an earlier commit may have been interrupted.",
            details={"operation_id": control.operation_id},
            data={"operation_id": control.operation_id},
        )

    def clear(self, control: OperationControl) -> None:
        """Remove the control marker of ``control`` (and only of it)."""
        current = self.read_control()
        if current.operation_id != control.operation_id:
            raise StreamtError(
                Codes.E424_STATE_CONFLICT,
                "The operation control marker belongs to another operation.",
                "Inspect `streamt state status`.",
            )
        self.control_path.unlink(missing_ok=True)
        fsync_dir(self.directory)

    # -- reviewed recovery (protocol methods; see docs/state-recovery.md) ----

    def read_recovery(self, recovery_operation_id: str) -> dict[str, Any] | None:
        """The durable recovery-history entry of one recovery operation, if it was committed."""
        document = _read_json(self.history_dir / f"recovery-{recovery_operation_id}.json", "recovery history")
        if document is not None and not isinstance(document, dict):
            raise _history_invalid()
        return document

    def verify_lock(self) -> None:
        """``E423`` when the lock file we hold was removed or replaced (another process could lock anew)."""
        if not self.lock_path.exists():
            raise StreamtError(
                Codes.E423_STATE_LOCK_LOST,
                "The state lock file disappeared while this operation held it; authority is lost.",
                "Start no mutation; inspect `streamt state status` and retry the identical command.",
            )

    def commit_recovery(
        self, entry: dict[str, Any], prior_checksum: str | None, candidate: OwnershipState | None
    ) -> OwnershipState | None:
        """Record the recovery, install ``candidate`` (when the state changes), then clear the blocked marker.

        Each step is resumable: a crash after any of them leaves the marker in
        place, and the identical retry finds its own recovery entry, skips what
        already happened and finishes.
        """
        blocked = str(entry["blocked_operation_id"])
        path = self.history_dir / f"recovery-{entry['recovery_operation_id']}.json"
        self.history_dir.mkdir(parents=True, exist_ok=True)
        data = canonical_json(entry) + b"\n"
        try:
            create_exclusive(path, data)
        except FileExistsError:
            if path.read_bytes() != data:
                raise _conflict("A different recovery with this operation id is already recorded.", blocked) from None
        boundary()
        current = self.read_state()
        checksum = current.checksum if current else None
        if candidate is not None and checksum == prior_checksum:
            self._install(self.read_control(), current, candidate)
            return candidate
        if candidate is not None and checksum != candidate.checksum:
            raise _conflict("The ownership state changed after the recovery was reviewed.", blocked)
        control = self.read_control()
        if control.operation_id == blocked:
            self.clear(control)
        return current

    # -- completion receipts of reviewed runtime replacements ----------------

    def write_receipt(self, operation_id: str, document: dict[str, Any]) -> None:
        """``<env>.history/receipt-<operation>.json``, exclusive: an identical retry is a no-op, another is E424."""
        path = self.history_dir / f"receipt-{uuid.UUID(operation_id)}.json"
        data = canonical_json(document) + b"\n"
        self.history_dir.mkdir(parents=True, exist_ok=True)
        try:
            create_exclusive(path, data)
        except FileExistsError:
            if path.read_bytes() != data:
                raise _conflict(
                    "A different receipt with this operation id is already recorded.", operation_id
                ) from None

    def has_receipt(self, operation_id: str, document: dict[str, Any]) -> bool:
        """Exactly this receipt is recorded for ``operation_id`` (read-only)."""
        path = self.history_dir / f"receipt-{uuid.UUID(operation_id)}.json"
        try:
            return path.read_bytes() == canonical_json(document) + b"\n"
        except FileNotFoundError:
            return False
        except OSError:
            raise StreamtError(
                Codes.E420_STATE_BACKEND_UNAVAILABLE,
                "The local completion receipt could not be read.",
                "Check the permissions of .streamt/state/.",
            ) from None

    def _write_control(self, control: OperationControl) -> None:
        atomic_write(self.control_path, control.canonical_bytes() + b"\n", mode=0o600)


def _history_invalid() -> StreamtError:
    return StreamtError(Codes.E411_STATE_INVALID, "A recovery history entry is malformed.", "Do not edit history.")


def _conflict(message: str, operation_id: str) -> StreamtError:
    return StreamtError(
        Codes.E424_STATE_CONFLICT,
        message,
        "Create fresh reviewed evidence with `streamt state recovery-plan`.",
        details={"operation_id": operation_id},
        data={"operation_id": operation_id},
    )


def local_backend(*, project: Any, project_dir: Path, purpose: str) -> LocalStateBackend:
    """The ``local`` backend's factory (``StateBackendRegistration.factory``) for ``project``."""
    del purpose  # the local backend serves every purpose the same way
    config = project.deployment_state
    return LocalStateBackend(
        project_dir=Path(project_dir),
        project=project.name,
        env=project.env,
        namespace=config.namespace or DEFAULT_NAMESPACE,
        lock_timeout_seconds=float(config.lock_timeout_seconds),
    )
