"""Plan text as the CLI reference shows it, and the JSON ``data`` of ``plan``."""

from __future__ import annotations

from typing import Any

from streamt.artifact_kinds import artifact_kinds
from streamt.compile.order import kind_rank
from streamt.plan.model import Plan
from streamt.plugins import get_plugins


def section_title(kind: str) -> str:
    """The heading of a kind's section in plan, apply and diff text, as its plugin registers it."""
    return artifact_kinds(get_plugins()).title(kind)


_SYMBOL = {"create": "+", "update": "~", "delete": "-", "noop": "=", "adopt": "&"}


def plan_text(plan: Plan, plan_file: str | None = None) -> str:
    counts = plan.counts
    lines = [f"Plan: {counts['create']} to create, {counts['update']} to update, {counts['delete']} to delete"]
    if plan.offline:
        lines.append("(offline: managed resources assumed absent; this plan cannot authorize apply)")
    kinds = sorted({a.kind for a in plan.actions}, key=kind_rank)
    for kind in kinds:
        lines += ["", f"{section_title(kind)}:"]
        for action in (a for a in plan.actions if a.kind == kind):
            detail = f" ({action.summary})" if action.summary else ""
            lines.append(f"  {_SYMBOL[action.action]} {action.identity}{detail}")
    if not plan.actions:
        lines += ["", "No artifacts: nothing to plan."]
    if plan.safety_blockers:
        lines += ["", "Safety blockers (apply is blocked):"]
        lines += [f"  ! {b.kind} {b.identity}: {b.message}" for b in plan.safety_blockers]
    if plan.ownership_requirements:
        lines += ["", "Ownership decisions required (apply is blocked, E410):"]
        lines += [f"  ? {r.kind} {r.identity}: {r.message}" for r in plan.ownership_requirements]
    if plan_file:
        lines += ["", f"Plan written to: {plan_file}"]
    return "\n".join(lines)


def plan_data(
    plan: Plan, plan_file: str | None = None, operation_status: dict[str, Any] | str = "unavailable"
) -> dict[str, Any]:
    """``operation_status`` is the backend's safe status online, ``unavailable`` offline."""
    return {
        "actions": [dict(a.to_json(), position=i) for i, a in enumerate(plan.actions)],
        "can_authorize_apply": plan.can_authorize_apply,
        "counts": plan.counts,
        "environment": plan.environment,
        "environment_fingerprint": plan.environment_fingerprint,
        "is_apply_blocked": plan.is_apply_blocked,
        "manifest_checksum": plan.manifest_checksum,
        "offline": plan.offline,
        "operation_status": operation_status,
        "ownership_requirements": [r.to_json() for r in plan.ownership_requirements],
        "plan_file": plan_file,
        "project": plan.project,
        "safety_blockers": [b.to_json() for b in plan.safety_blockers],
        "state": plan.state.to_json() if plan.state else None,
    }
