"""What one replacement operation is now: from the journal, ownership, receipt and live containers.

Read-only: ``diagnose`` reads state, control, receipt and the engine, never writes. The answer's
``status`` is ``pending`` (safe to resume: ``next_step`` names the step ``state resume`` runs),
``completed`` (receipt, current ownership and the RUNNING candidate agree), ``incomplete``
(old removed, candidate absent: blocks), ``blocked`` (anything else that cannot be proven), or
``not_started`` (no journal of this operation; the reviewed runner is untouched). Clear control
alone never reads as completed.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import CLEAR, StreamtError

from streamt_kstreams.coordinator import (
    COMMITTED,
    COMPLETED,
    OPERATION_KIND,
    candidate_problem,
    is_healthy,
    is_running,
    last_boundary,
    look,
    next_step,
)
from streamt_kstreams.operation import receipt_document

PENDING, DONE_STATUS, INCOMPLETE, BLOCKED, NOT_STARTED = "pending", "completed", "incomplete", "blocked", "not_started"
RUNBOOK = "docs/runner-replacement.md"


def answer(
    status: str,
    control: Any,
    phase: str,
    committed: bool | None,
    step: str,
    reason: str | None,
    next_action: str,
) -> dict[str, Any]:
    return {
        "status": status,
        "control_status": control.status,
        "lifecycle_phase": phase,
        "committed": committed,
        "resumable": status == PENDING,
        "next_step": step,
        "reason": reason,
        "next_action": next_action,
    }


def diagnose(
    backend: Any, client: Any, binding: dict[str, Any], artifact: Any, operation_id: str, commands: dict[str, str]
) -> dict[str, Any]:
    """The diagnosis of ``operation_id``; ``commands``: the exact ``resume`` and ``apply`` command lines."""
    resume = commands["resume"]
    control = backend.read_control()
    state = backend.read_state()
    record = state.by_resource.get(binding["resource_id"]) if state is not None else None
    ours = record is not None and (record.attributes or {}).get("operation_id") == operation_id
    live = look(client, binding)
    if control.status != CLEAR:
        if control.operation_id != operation_id or control.operation_kind != OPERATION_KIND:
            why = f"another operation ({control.operation_id}) holds the operation control"
            return answer(BLOCKED, control, "unknown", False, "none", why, "streamt state status")
        if (control.actions[0] if control.actions else {}).get("plan_checksum") != binding["plan_checksum"]:
            why = "the pending operation was started from another plan file"
            return answer(BLOCKED, control, "unknown", False, "none", why, "use the original plan file")
        phase = last_boundary(control)
        if ours and state.serial == (control.base_serial or 0) + 1:
            # The commit wrote the new state; only clearing its marker was not acknowledged.
            return answer(PENDING, control, COMMITTED, True, "clear_control", None, resume)
        try:
            step = next_step(phase, live, binding)
        except StreamtError as error:
            status = INCOMPLETE if live.old is None and live.candidate is None else BLOCKED
            return answer(status, control, phase, False, "none", error.diagnostics[0].message, f"see {RUNBOOK}")
        if step in ("await_candidate", "remove_old", "commit") and live.candidate is not None:
            problem = candidate_problem(client, live.candidate, binding, artifact, operation_id)
            if problem:
                why = f"the container under the candidate's name cannot be reused: {problem}"
                return answer(BLOCKED, control, phase, False, "none", why, f"see {RUNBOOK}")
        return answer(PENDING, control, phase, False, step, None, resume)
    if not ours or record is None or record.artifact_checksum != binding["to_checksum"]:
        running = is_running(live.old) and live.candidate is None
        why = "no journal of this operation exists" + ("; the reviewed runner is untouched" if running else "")
        action = commands["apply"] if running else f"see {RUNBOOK}"
        return answer(NOT_STARTED if running else BLOCKED, control, "not_started", False, "none", why, action)
    candidate_ok = live.candidate is not None and live.candidate.get("Id") == record.attributes.get("container_id")
    if not (candidate_ok and is_healthy(live.candidate)):
        why = "the committed candidate is not RUNNING"
        return answer(BLOCKED, control, COMMITTED, True, "none", why, f"see {RUNBOOK}")
    expected = receipt_document(binding, operation_id, state, str(record.attributes.get("container_id")))
    if backend.has_receipt(operation_id, expected):
        return answer(DONE_STATUS, control, COMPLETED, True, "none", None, "none")
    return answer(PENDING, control, COMMITTED, True, "write_receipt", None, resume)
