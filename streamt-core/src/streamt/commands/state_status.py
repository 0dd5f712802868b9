"""`streamt state status`: safe ownership and operation-control metadata; never creates files."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import env_option, project_dir_option
from streamt.result import Result

_RETAIN = (
    "An unfinished operation marker is present: it blocks apply/adopt until reviewed recovery. "
    "Retain the sidecar evidence; do not delete or edit it (state status cannot clear it)."
)


def state_status_text(status: dict[str, Any]) -> str:
    operation = status.get("operation_status") or {}
    lines = [f"Backend: {status.get('backend')}", f"Address: {status.get('address')}"]
    if status.get("store_id"):
        lines.append(f"Store: {status['store_id']}")
    for key, value in sorted(status.items()):
        if key not in ("backend", "address", "store_id", "state_status", "serial", "checksum", "operation_status"):
            lines.append(f"{key.replace('_', ' ').capitalize()}: {value}")
    state = status.get("state_status")
    serial = f" (serial {status.get('serial')}, {status.get('checksum')})" if state == "present" else ""
    lines.append(f"Ownership state: {state}{serial}")
    lines.append(f"Operation: {operation.get('status')}")
    if operation.get("status") not in (None, "clear"):
        lines.append(f"  operation id: {operation.get('operation_id')} ({operation.get('operation_kind')})")
        lines.append(f"  failure code: {operation.get('failure_code')}")
        lines.append(f"  last successful action index: {operation.get('last_success_index')}")
        lines.append(_RETAIN)
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
    return Result("state status", data=status, text=state_status_text(status))
