"""The gates of ``lifecycle`` removal tombstones (dsl.md section 15).

A tombstone requests one exact delete, and only a fresh online reviewed plan applied as reviewed
may carry it out. An offline plan and a reviewed ``apply --plan --dry-run`` are refused as soon as
the project is loaded, before any state or provider access.

Once its delete is committed (no ownership record, nothing live) a tombstone is *fulfilled* and
inert: a direct apply, narrowed or not, plans every tombstone online with the rest of the project
and proceeds when each one is a fulfilled no-op; a tombstone that still needs its delete (or is
blocked) refuses the direct apply with ``E418`` after planning, before any mutation.

The gates are the same for every removal kind; the kinds themselves are their plugins'
(``streamt_removal_kinds``), recognised here only by the ``_removal`` suffix of their artifact kind.
"""

from __future__ import annotations

from typing import Any

from streamt import kinds
from streamt.artifacts import resource_id
from streamt.errors import Codes, StreamtError
from streamt.plan.model import NOOP
from streamt.plugins import get_plugins
from streamt.state.selection import is_local

REMOVAL_SUFFIX = "_removal"
# The reason of a tombstone's no-op (no record, nothing live): its delete is done or was never needed.
TOMBSTONE_FULFILLED = "tombstone fulfilled: you may delete it from the YAML"


def tombstones(project: Any) -> list[str]:
    """``kind 'name'`` of every declared tombstone, in declaration order (removal kinds in plugin order)."""
    claimed = kinds.removal_kinds(get_plugins())
    named = []
    for key, entries in project.lifecycle.removals.items():
        removal = claimed.get(key)
        if removal is not None:  # a list without its plugin fails the compile (E903)
            named += [f"{_title(removal.kind)} '{removal.tombstone(entry).identity}'" for entry in entries]
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


def refuse_reviewed_dry_run(project: Any, plan_path: str | None, dry_run: bool) -> None:
    """``E418`` for ``apply --plan --dry-run`` with tombstones: a reviewed removal is applied or not at all."""
    named = tombstones(project)
    if named and plan_path is not None and dry_run:
        raise StreamtError(
            Codes.E418_REVIEWED_PLAN_REQUIRED,
            f"Removal tombstones ({', '.join(named)}) cannot be authorized by apply --plan --dry-run: "
            "only a fresh online reviewed plan, applied as reviewed, may delete.",
            _workflow(project),
        )


def with_tombstones(compiled: Any, selected: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    """A narrowed apply's selection plus every tombstone: each must be proved fulfilled before it proceeds."""
    if selected is None:
        return None
    chosen = {(a.kind, a.identity) for a in selected}
    return tuple(a for a in compiled.artifacts if (a.kind, a.identity) in chosen or is_removal(a.kind))


def refuse_unfulfilled(project: Any, plan: Any) -> None:
    """``E418`` when a direct apply's live plan has a tombstone that is not a fulfilled no-op.

    A pending delete, a removal blocker or an ownership question all need the reviewed workflow;
    nothing has been mutated yet.
    """
    pending = [a for a in plan.actions if is_removal(a.kind) and a.action != NOOP]
    pending += [b for b in plan.safety_blockers if is_removal(b.kind)]
    pending += [r for r in plan.ownership_requirements if is_removal(r.kind)]
    if not pending:
        return
    named = sorted({f"{_title(item.kind)} '{item.identity}'" for item in pending})
    raise StreamtError(
        Codes.E418_REVIEWED_PLAN_REQUIRED,
        f"Removal tombstones ({', '.join(named)}) cannot be authorized by a direct apply: "
        "only a fresh online reviewed plan, applied as reviewed, may delete.",
        _workflow(project),
    )


def _title(kind: str) -> str:
    return prior_kind(kind).replace("_", " ")


def is_removal(kind: str) -> bool:
    """Is ``kind`` the artifact kind of a removal tombstone (``connector_removal``...)?"""
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


def require_shared_state(artifacts: Any, backend: Any, plugins: Any = None) -> None:
    """``E420`` before any service access: a removal kind that needs a shared backend's authority, on local state."""
    if not is_local(backend):
        return
    planned = {a.kind for a in artifacts if is_removal(a.kind)}
    for removal in kinds.removal_kinds(plugins or get_plugins()).values():
        if removal.kind in planned and removal.local_state_refusal is not None:
            message, suggestion = removal.local_state_refusal
            raise StreamtError(Codes.E420_STATE_BACKEND_UNAVAILABLE, message, suggestion)
