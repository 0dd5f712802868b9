"""The gates of ``lifecycle`` removal tombstones (dsl.md section 15), before any state or provider access.

A tombstone requests one exact delete, and only a fresh online reviewed plan applied as reviewed
may carry it out. So an offline plan, a direct apply, any ``--dry-run`` and an apply narrowed
with ``--target``/``--select`` are refused as soon as the project is loaded: none of them may
read deployment state or build a provider client on a tombstone's behalf.
"""

from __future__ import annotations

from typing import Any

from streamt.errors import Codes, StreamtError


def tombstones(project: Any) -> list[str]:
    """``kind 'name'`` of every declared tombstone, in declaration order."""
    lifecycle = project.lifecycle
    named = [f"gateway rule '{r.prior_artifact.name}'" for r in lifecycle.gateway_rule_removals]
    named += [f"connector '{r.name}'" for r in lifecycle.connector_removals]
    return named


def _workflow(project: Any) -> str:
    env = project.env
    return (
        f"Run `streamt plan --env {env} --out removal.plan.json` (online), review it, then "
        f"`streamt apply --env {env} --plan removal.plan.json` (with --force unless safety.allow_destructive)."
    )


def refuse_offline(project: Any) -> None:
    """``E418``: an offline plan assumes nothing exists, so it can neither assess nor authorize a removal."""
    named = tombstones(project)
    if named:
        raise StreamtError(
            Codes.E418_REVIEWED_PLAN_REQUIRED,
            f"Offline plans cannot plan removal tombstones ({', '.join(named)}): a removal needs live evidence.",
            _workflow(project),
        )


def refuse_unreviewed_apply(
    project: Any, plan_path: str | None, dry_run: bool, target: str | None, select: str | None
) -> None:
    """``E418`` for a direct apply, a dry run, or a narrowed apply of a project with tombstones."""
    named = tombstones(project)
    if not named:
        return
    if plan_path is None:
        how = "a direct apply --dry-run" if dry_run else "a direct apply"
    elif dry_run:
        how = "apply --plan --dry-run"
    elif target or select:
        how = "apply --target/--select"
    else:
        return
    raise StreamtError(
        Codes.E418_REVIEWED_PLAN_REQUIRED,
        f"Removal tombstones ({', '.join(named)}) cannot be authorized by {how}: "
        "only a fresh online reviewed plan, applied as reviewed, may delete.",
        _workflow(project),
    )
