"""One replacement operation end to end: begin, drive the coordinator, receipt, and what to tell the user.

Shared by ``apply --plan`` (which begins the operation) and ``state resume`` (which continues it).
Outcomes in the JSON data: ``committed: true`` once the ownership commit is verified (a later
receipt or lock-release problem keeps it true); ``committed: false`` when the operation stopped
before its commit with a known outcome; ``committed: null`` when an acknowledgement was lost and
only a fresh ``state runner-status`` can tell. Every non-success names the same plan file and the
original operation UUID in ``next_steps``.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import CLEAR, Codes, StreamtError, boundary

from streamt_kstreams.coordinator import (
    OLD_REMOVED,
    OPERATION_KIND,
    Coordinator,
    LostAcknowledgement,
    intent,
    last_boundary,
)

RECEIPT_FORMAT = "streamt.kafka-streams-replacement-receipt"


def next_steps(plan_path: str, operation_id: str, env: str | None) -> list[str]:
    where = f" -e {env}" if env else ""
    tail = f"--plan {plan_path} --operation-id {operation_id}"
    return [f"streamt state runner-status{where} {tail}", f"streamt state resume{where} {tail}"]


def receipt_document(binding: dict[str, Any], operation_id: str, state: Any, candidate_id: str) -> dict[str, Any]:
    return {
        "format": RECEIPT_FORMAT,
        "operation_id": operation_id,
        "plan_checksum": binding["plan_checksum"],
        "resource_id": binding["resource_id"],
        "from_checksum": binding["from_checksum"],
        "to_checksum": binding["to_checksum"],
        "candidate_container_id": candidate_id,
        "candidate_generation": binding["candidate_generation"],
        "serial": state.serial,
        "state_checksum": state.checksum,
    }


def begin(backend: Any, binding: dict[str, Any]) -> Any:
    control = backend.begin_operation(OPERATION_KIND, [intent(binding)])
    boundary()
    return control


def drive(coordinator: Coordinator, control: Any, plan_path: str, env: str | None) -> dict[str, Any]:
    """Run the coordinator from ``control`` to a written receipt; structured errors otherwise."""
    operation_id = control.operation_id
    steps = next_steps(plan_path, operation_id, env)
    try:
        state = coordinator.run(control)
    except LostAcknowledgement as lost:
        latest = coordinator.backend.read_control()
        acknowledged = last_boundary(latest) if latest.operation_id == operation_id else OLD_REMOVED
        raise StreamtError(
            Codes.E425_STATE_UNKNOWN_OUTCOME if lost.committed_unknown else Codes.E407_DEPLOY_ERROR,
            f"The acknowledgement after {lost.boundary_name} was lost: the outcome is unknown.",
            "Do not replan or rerun apply; follow next_steps with the same plan file and operation id.",
            details={"operation_id": operation_id},
            data=_pending(operation_id, None, acknowledged, steps),
        ) from None
    except StreamtError as error:
        latest = coordinator.backend.read_control()
        boundary_name = last_boundary(latest) if latest.operation_id == operation_id else "unknown"
        raise StreamtError(
            error.diagnostics[0].code,
            error.diagnostics[0].message,
            error.diagnostics[0].suggestion,
            details={"operation_id": operation_id},
            data=_pending(operation_id, False, boundary_name, steps),
        ) from None
    return finish(coordinator, operation_id, state)


def finish(coordinator: Coordinator, operation_id: str, state: Any) -> dict[str, Any]:
    """Write the completion receipt of a committed ``state`` (an identical receipt already there is fine)."""
    candidate_id = str(state.by_resource[coordinator.binding["resource_id"]].attributes["container_id"])
    coordinator.backend.write_receipt(
        operation_id, receipt_document(coordinator.binding, operation_id, state, candidate_id)
    )
    boundary()
    return {
        "operation_id": operation_id,
        "committed": True,
        "read_only": False,
        "serial": state.serial,
        "state_checksum": state.checksum,
        "candidate_container_id": candidate_id,
        "last_acknowledged_boundary": "receipt_written",
        "next_steps": [],
    }


def finish_commit(coordinator: Coordinator, control: Any) -> dict[str, Any]:
    """Resume after the commit: clear this operation's marker if only that was lost, then the receipt."""
    operation_id = str(journal_operation(coordinator, control))
    if control.status != CLEAR and control.operation_id == operation_id:
        coordinator.backend.clear(control)
        boundary()
    return finish(coordinator, operation_id, coordinator.backend.read_state())


def journal_operation(coordinator: Coordinator, control: Any) -> str:
    """The operation a post-commit resume finishes: the pending marker's, else the committed record's."""
    if control.status != CLEAR:
        return str(control.operation_id)
    record = coordinator.backend.read_state().by_resource[coordinator.binding["resource_id"]]
    return str(record.attributes["operation_id"])


def _pending(operation_id: str, committed: bool | None, boundary_name: str, steps: list[str]) -> dict[str, Any]:
    return {
        "operation_id": operation_id,
        "committed": committed,
        "last_acknowledged_boundary": boundary_name,
        "next_steps": steps,
    }
