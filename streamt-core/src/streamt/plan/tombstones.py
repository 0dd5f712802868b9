"""The gates of ``lifecycle`` removal tombstones (dsl.md section 15), before any state or provider access.

A tombstone requests one exact delete, and only a fresh online reviewed plan applied as reviewed
may carry it out. So an offline plan, a direct apply, any ``--dry-run`` and an apply narrowed
with ``--target``/``--select`` are refused as soon as the project is loaded: none of them may
read deployment state or build a provider client on a tombstone's behalf.
"""

from __future__ import annotations

from typing import Any

from streamt.artifacts import KIND_CONNECTOR_REMOVAL, resource_id
from streamt.errors import Codes, StreamtError
from streamt.state.selection import is_local

REMOVAL_SUFFIX = "_removal"


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


def refuse_offline_artifacts(artifacts: Any) -> None:
    """The engine's own guard: an offline plan never plans a removal artifact, whoever calls it."""
    named = [f"{a.kind} '{a.identity}'" for a in artifacts if is_removal(a.kind)]
    if named:
        raise StreamtError(
            Codes.E418_REVIEWED_PLAN_REQUIRED,
            f"Offline plans cannot plan removal tombstones ({', '.join(named)}): a removal needs live evidence.",
            "Create an online plan with `streamt plan --out PLAN.json`, review it, then `streamt apply --plan`.",
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


def is_removal(kind: str) -> bool:
    return kind.endswith(REMOVAL_SUFFIX)


def prior_kind(kind: str) -> str:
    """``connector`` for ``connector_removal``: the kind whose ownership record a tombstone names."""
    return kind.removesuffix(REMOVAL_SUFFIX)


def prior_resource_id(kind: str, logical_owner: str, project: str, env: str) -> str:
    """The ownership record a tombstone (``kind``, named after its logical owner) binds: the prior artifact's."""
    return resource_id(project, env, prior_kind(kind), logical_owner)


def authorize(requires: Any, allow_destructive: bool) -> list[str]:
    """A removal's ``requires``; ``safety.allow_destructive`` supplies the destructive authorization."""
    return [r for r in requires or () if not (r == "force" and allow_destructive)]


def require_connector_removal_backend(artifacts: Any, backend: Any) -> None:
    """``E420`` before any Connect access: connector removal needs PostgreSQL v2 ownership state."""
    if is_local(backend) and any(a.kind == KIND_CONNECTOR_REMOVAL for a in artifacts):
        raise StreamtError(
            Codes.E420_STATE_BACKEND_UNAVAILABLE,
            "Connector removal needs PostgreSQL v2 deployment state; local state cannot prove the exclusive "
            "authority a delete requires.",
            "Configure deployment_state.backend: postgres (migrated to v2) for this environment.",
        )
