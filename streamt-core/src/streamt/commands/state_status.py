"""`streamt state status`: safe ownership and operation-control metadata; never creates files."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import env_option, project_dir_option
from streamt.result import Result
from streamt.shown import shown
from streamt.state.operations import RUNNER_REPLACEMENT_OPERATION, next_steps

_RETAIN = (
    "An unfinished operation marker is present: it blocks apply/adopt until {until}. "
    "Retain the sidecar evidence; do not delete or edit it (state status cannot clear it)."
)
_RESUME = "state resume finishes it (generic recovery refuses a runner replacement)"


def state_status_text(status: dict[str, Any], env: str | None = None) -> str:
    operation = status.get("operation_status") or {}
    lines = [f"Backend: {status.get('backend')}", f"Address: {status.get('address')}"]
    if status.get("store_id"):
        lines.append(f"Store: {status['store_id']}")
    for key, value in sorted(status.items()):
        if key not in ("backend", "address", "store_id", "state_status", "serial", "checksum", "operation_status"):
            lines.append(f"{key.replace('_', ' ').capitalize()}: {shown(value)}")
    state = status.get("state_status")
    serial = f" (serial {status.get('serial')}, {status.get('checksum')})" if state == "present" else ""
    lines.append(f"Ownership state: {state}{serial}")
    lines.append(f"Operation: {operation.get('status')}")
    if operation.get("status") not in (None, "clear"):
        kind, operation_id = operation.get("operation_kind"), str(operation.get("operation_id"))
        lines.append(f"  operation id: {operation_id} ({kind})")
        lines.append(f"  failure code: {shown(operation.get('failure_code'))}")
        lines.append(f"  last successful action index: {shown(operation.get('last_success_index'))}")
        lines.append(_RETAIN.format(until=_RESUME if kind == RUNNER_REPLACEMENT_OPERATION else "reviewed recovery"))
        lines += [f"  next: {step}" for step in next_steps(kind, operation_id, env)]
    return "\n".join(lines)


@click.command("status")
@project_dir_option
@env_option
def state_status_command(project_dir: str, env: str | None) -> Result:
    """Inspect ownership and operation-control metadata."""
    from pathlib import Path

    from streamt.project.loader import load_project
    from streamt.state.selection import READ, open_state_backend

    project = load_project(project_dir, env)
    status = open_state_backend(project, Path(project.root), READ).status()
    return Result("state status", data=status, text=state_status_text(status, project.env))
