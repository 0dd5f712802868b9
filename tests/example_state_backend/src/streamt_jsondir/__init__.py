"""``deployment_state.backend: jsondir``: ownership state as JSON files under ``.jsondir/<namespace>/<env>/``."""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
from streamt.sdk import (
    CLEAR,
    IN_PROGRESS,
    RECOVERY_REQUIRED,
    ActionProgress,
    Codes,
    OperationControl,
    OwnershipRecord,
    OwnershipState,
    Project,
    StateBackendRegistration,
    StreamtError,
    atomic_write,
    canonical_json,
    create_exclusive,
    hookimpl,
    state_address,
)


@hookimpl
def streamt_state_backends() -> list[StateBackendRegistration]:
    return [StateBackendRegistration("jsondir", "JSON files under .jsondir/<namespace>/<env>/", factory=open_backend)]


def open_backend(*, project: Project, project_dir: Path, purpose: str) -> JsonDirBackend:
    """The factory core calls; it connects nowhere (there is nothing to connect to)."""
    config = project.deployment_state
    namespace = config.namespace or "jsondir"
    root = Path(project_dir) / ".jsondir" / namespace / project.env
    return JsonDirBackend(root, state_address(namespace, project.name, project.env), config.lock_timeout_seconds)


class JsonDirBackend:
    """The ``streamt.sdk.StateBackend`` protocol over plain files, one process at a time (``flock``)."""

    name = "jsondir"

    def __init__(self, root: Path, address: str, lock_timeout_seconds: float) -> None:
        self.root, self.address, self.lock_timeout = root, address, float(lock_timeout_seconds)
        self._lock_fd: int | None = None

    # -- reading ---------------------------------------------------------------

    def _read(self, name: str) -> Any | None:
        try:
            return json.loads((self.root / name).read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            raise StreamtError(Codes.E411_STATE_INVALID, f"jsondir: {name} is unreadable.", "Restore it.") from None

    def _write(self, name: str, document: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write(self.root / name, canonical_json(document) + b"\n", mode=0o600)

    def read_state(self) -> OwnershipState | None:
        document = self._read("state.json")
        return None if document is None else OwnershipState.from_document(document, self.address)

    def read_control(self) -> OperationControl:
        document = self._read("control.json")
        return OperationControl() if document is None else OperationControl.from_document(document)

    def read_recovery(self, recovery_operation_id: str) -> dict[str, Any] | None:
        return self._read(f"recovery-{recovery_operation_id}.json")

    def status(self) -> dict[str, Any]:
        state, control = self.read_state(), self.read_control()
        return {
            "backend": self.name,
            "store_id": state.store_id if state else None,
            "address": self.address,
            "state_status": "present" if state else "absent",
            "serial": state.serial if state else 0,
            "checksum": state.checksum if state else None,
            "operation_status": control.safe_status(),
        }

    # -- authority ---------------------------------------------------------------

    @contextlib.contextmanager
    def operation_lock(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.lock_timeout
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StreamtError(
                            Codes.E422_STATE_LOCK_TIMEOUT, "jsondir: the state lock is held.", "Retry later."
                        ) from None
                    time.sleep(0.05)
            self._lock_fd = fd
            yield
        finally:
            self._lock_fd = None
            os.close(fd)  # closing releases the flock

    def verify_lock(self) -> None:
        if self._lock_fd is None or not (self.root / "lock").exists():
            raise StreamtError(Codes.E423_STATE_LOCK_LOST, "jsondir: the state lock is not held.", "Retry.")

    def require_clear(self) -> OperationControl:
        control = self.read_control()
        if control.status != CLEAR:
            raise StreamtError(
                Codes.E419_STATE_RECOVERY_REQUIRED,
                f"An unfinished operation ({control.status}) blocks changes.",
                "Use `streamt state recovery-plan` / `streamt state recover`.",
                data={"operation_id": control.operation_id},
            )
        return control

    # -- the operation ------------------------------------------------------------

    def begin_operation(self, kind: str, actions: Sequence[dict[str, Any]]) -> OperationControl:
        self.require_clear()
        state = self.read_state()
        control = OperationControl(
            status=IN_PROGRESS,
            operation_id=str(uuid.uuid4()),
            operation_kind=kind,
            started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            base_serial=state.serial if state else 0,
            actions=tuple(actions),
        )
        self._write("control.json", control.to_document())
        return control

    def record_progress(self, control: OperationControl, index: int, outcome: str) -> OperationControl:
        return self.record_progress_many(control, [index], outcome)

    def record_progress_many(
        self, control: OperationControl, indexes: Sequence[int], outcome: str, evidence: dict[str, Any] | None = None
    ) -> OperationControl:
        progress = (*control.progress, *(ActionProgress(i, outcome, evidence) for i in indexes))
        return self._replace_control(control, progress=progress)

    def mark_recovery_required(self, control: OperationControl, failure_code: str) -> OperationControl:
        return self._replace_control(control, status=RECOVERY_REQUIRED, failure_code=failure_code)

    def _replace_control(self, control: OperationControl, **changes: Any) -> OperationControl:
        updated = attrs.evolve(control, **changes)
        self._write("control.json", updated.to_document())
        return updated

    def commit(self, control: OperationControl, records: Sequence[OwnershipRecord]) -> OwnershipState:
        current = self.read_state()
        if control.base_serial != (current.serial if current else 0):
            raise StreamtError(Codes.E424_STATE_CONFLICT, "The state changed while the operation ran.", "Re-plan.")
        state = OwnershipState(
            current.store_id if current else str(uuid.uuid4()),
            self.address,
            (current.serial if current else 0) + 1,
            tuple(sorted(records, key=lambda r: r.resource_id)),
        )
        self._install(control, state)
        return state

    def commit_recovery(
        self, entry: dict[str, Any], prior_checksum: str | None, candidate: OwnershipState | None
    ) -> OwnershipState | None:
        path = self.root / f"recovery-{entry['recovery_operation_id']}.json"
        data = canonical_json(entry) + b"\n"
        try:
            create_exclusive(path, data)
        except FileExistsError:
            if path.read_bytes() != data:
                raise StreamtError(Codes.E424_STATE_CONFLICT, "Another recovery has this id.", "Re-plan.") from None
        current = self.read_state()
        checksum = current.checksum if current else None
        if candidate is not None and checksum == prior_checksum:
            self._install(self.read_control(), candidate)
            return candidate
        if candidate is not None and checksum != candidate.checksum:
            raise StreamtError(Codes.E424_STATE_CONFLICT, "The state changed after the review.", "Re-plan.")
        if self.read_control().operation_id == entry["blocked_operation_id"]:
            (self.root / "control.json").unlink(missing_ok=True)
        return current

    def _install(self, control: OperationControl, state: OwnershipState) -> None:
        """History entry (exclusive), then the state, then the marker goes: each step atomic."""
        (self.root / "history").mkdir(parents=True, exist_ok=True)
        entry = {"serial": state.serial, "operation_id": control.operation_id, "state_checksum": state.checksum}
        try:
            create_exclusive(self.root / "history" / f"{state.serial:010d}.json", canonical_json(entry) + b"\n")
        except FileExistsError:
            raise StreamtError(Codes.E424_STATE_CONFLICT, f"Serial {state.serial} exists.", "Inspect.") from None
        self._write("state.json", state.to_document())
        (self.root / "control.json").unlink(missing_ok=True)
