"""``state runner-status`` and ``state resume``: one reviewed replacement, by its plan file and operation UUID.

Both verify the original format-6 file (``E408``) and the full current project against it
(``E409``) before any state or runtime access, then take the state-operation lock.
``runner-status`` only reads (state, control, receipt, the engine); ``resume`` continues the same
operation from the step the diagnosis proves, or verifies a completed one read-only.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import attrs
import click
from streamt.sdk import (
    Codes,
    Progress,
    Result,
    StreamtError,
    env_option,
    for_command,
    project_dir_option,
    quiet_option,
)

from streamt_kstreams.limits import MAX_RUNNER_WAIT


@attrs.frozen
class Reviewed:
    project: Any
    binding: dict[str, Any]
    artifact: Any
    backend: Any
    reviewed: Any
    commands: dict[str, str]


def operation_uuid(value: str) -> str:
    try:
        parsed = uuid.UUID(value)
    except ValueError:
        parsed = None
    if parsed is None or str(parsed) != value:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            "--operation-id must be the canonical UUID the original apply returned.",
            "Copy data.operation_id from the apply output (lower-case, with hyphens).",
        )
    return value


def open_reviewed(project_dir: str, env: str | None, plan_path: str, operation_id: str) -> Reviewed:
    """The verified plan file, project, binding and state backend (nothing locked, nothing contacted)."""
    from streamt.sdk import (
        WRITE,
        load_project,
        open_backend,
        project_bindings,
        read_plan_file,
        require_authorizing,
        require_receipts,
        require_remote_state,
        validate_and_compile,
        verify_bindings,
    )

    operation_uuid(operation_id)
    reviewed = require_authorizing(read_plan_file(Path(plan_path)))
    if reviewed.replacement is None:
        raise StreamtError(
            Codes.E408_PLAN_FILE_INVALID,
            f"'{plan_path}' is not a format-6 reviewed replacement plan.",
            "Pass the original plan file the replacement was applied from.",
        )
    project = load_project(project_dir, env)
    require_remote_state(project)
    compiled = validate_and_compile(project).compiled
    verify_bindings(reviewed, project_bindings(project, compiled))
    binding = {**reviewed.replacement, "plan_checksum": reviewed.document["integrity"]["checksum"]}
    action = binding["action"]
    artifact = next(a for a in compiled.artifacts if (a.kind, a.identity) == (action["kind"], action["identity"]))
    where = f" -e {env}" if env else ""
    tail = f"--plan {plan_path} --operation-id {operation_id}"
    commands = {"resume": f"streamt state resume{where} {tail}", "apply": f"streamt apply{where} --plan {plan_path}"}
    backend = open_backend(project, WRITE)
    require_receipts(backend)
    return Reviewed(project, binding, artifact, backend, reviewed, commands)


def text_of(data: dict[str, Any]) -> str:
    lines = [
        f"Replacement {data['operation_id']}: {data['status']} (phase {data['lifecycle_phase']}, "
        f"control {data['control_status']}, committed {data['committed']})",
        f"Next step: {data['next_step']}; next action: {data['next_action']}",
    ]
    if data.get("reason"):
        lines.append(f"Reason: {data['reason']}")
    return "\n".join(lines)


plan_option = click.option("--plan", "plan_path", required=True, help="The original reviewed format-6 plan file.")
operation_option = click.option(
    "--operation-id", "operation_id", required=True, help="The canonical UUID returned by the original apply."
)


@click.command("runner-status")
@project_dir_option
@env_option
@plan_option
@operation_option
def runner_status_command(project_dir: str, env: str | None, plan_path: str, operation_id: str) -> Result:
    """Inspect one reviewed Kafka Streams replacement (read-only, under the state lock)."""
    from streamt_kstreams import engine
    from streamt_kstreams.diagnosis import diagnose

    opened = open_reviewed(project_dir, env, plan_path, operation_id)
    with opened.backend.operation_lock():
        client = engine.client()
        try:
            found = diagnose(opened.backend, client, opened.binding, opened.artifact, operation_id, opened.commands)
        finally:
            client.close()
    data = {"operation_id": operation_id, "read_only": True, **found}
    return Result("state runner-status", data=data, text=text_of(data))


@click.command("resume")
@project_dir_option
@env_option
@plan_option
@operation_option
@click.option("--confirm-env", default=None, help="The environment name, when its apply policy demands confirmation.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True, max=MAX_RUNNER_WAIT),
    default=60.0,
    show_default=True,
    help="Bound each replacement wait, in seconds (not a total command deadline).",
)
@quiet_option
def resume_command(
    project_dir: str,
    env: str | None,
    plan_path: str,
    operation_id: str,
    confirm_env: str | None,
    timeout: float,
    quiet: bool,
) -> Result:
    """Continue one interrupted Kafka Streams replacement (same plan file and operation UUID)."""
    from streamt.sdk import check_confirm_env, confirm

    from streamt_kstreams import engine
    from streamt_kstreams.diagnosis import DONE_STATUS, PENDING, diagnose

    opened = open_reviewed(project_dir, env, plan_path, operation_id)
    check_confirm_env(opened.project, confirm_env)
    confirm(opened.project, False, confirm_env, False)
    backend = opened.backend
    with backend.operation_lock():
        client = engine.client()
        try:
            found = diagnose(backend, client, opened.binding, opened.artifact, operation_id, opened.commands)
        finally:
            client.close()
        if found["status"] == DONE_STATUS:
            data = {"operation_id": operation_id, "read_only": True, **found}
            return Result("state resume", data=data, text=text_of(data))
        if found["status"] != PENDING:
            raise StreamtError(
                Codes.E419_STATE_RECOVERY_REQUIRED,
                f"The replacement {operation_id} cannot be resumed: {found['reason']}.",
                f"Keep the containers, volume and state as they are; {found['next_action']}.",
                data={"operation_id": operation_id, "read_only": True, **found},
            )
        progress = for_command(quiet)
        try:
            done = continue_operation(opened, found["next_step"], timeout, project_dir, env, plan_path, progress)
        finally:
            progress.close()
    data = {**done, "read_only": False, "status": DONE_STATUS}
    return Result("state resume", data=data, text=f"Replacement {operation_id} completed; serial {done['serial']}.")


def continue_operation(
    opened: Reviewed,
    step: str,
    timeout: float,
    project_dir: str,
    env: str | None,
    plan_path: str,
    progress: Progress,
) -> dict[str, Any]:
    from streamt.sdk import reviewed_verifier

    from streamt_kstreams.coordinator import Coordinator
    from streamt_kstreams.operation import drive, finish_commit

    backend = opened.backend
    verify = reviewed_verifier(project_dir, env, opened.reviewed, backend)
    coordinator = Coordinator(
        opened.project.runtime, backend, opened.binding, opened.artifact, timeout, verify, progress=progress
    )
    if step in ("clear_control", "write_receipt"):
        return finish_commit(coordinator, backend.read_control())
    return drive(coordinator, backend.read_control(), plan_path, env)
