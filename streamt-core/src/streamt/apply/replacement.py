"""Reviewed runtime replacements (extended plan files, format 6 ...): eligibility, the binding, and apply's entry.

A planner marks a replacement it can coordinate with an ``update`` whose evidence carries
``replacement`` plus a ``*_reviewed_replacement`` safety blocker (and one it refuses with
``replacement_ineligible``: the reason, which ``plan`` reports as ``eligible: false``), so generic apply refuses it
(``E417``) however it is invoked. ``plan`` saves the plan-file extension of the action's kind
(``streamt_plan_file_extensions``: format 6 for a Kafka Streams runner) only when that action is the sole
mutation and the blocker the sole blocker of the full project; the kind's deployer then binds the
remaining live facts (``prepare_replacement``: committed offset lower bounds). ``apply --plan`` of
such a file hands the verified plan to the deployer's coordinator (``replace``) instead of the
generic executor: no generic rollback, no batch, no other action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamt.apply.executor import ApplyReport
from streamt.apply.interrupted import reported
from streamt.apply.render import apply_data
from streamt.compile import validate_and_compile
from streamt.errors import Codes, StreamtError
from streamt.plan.engine import project_bindings
from streamt.plan.model import Action, Plan
from streamt.plan.planfile import ReviewedPlan, extension_for
from streamt.project.loader import load_project
from streamt.result import Result
from streamt.runlineage.lifecycle import begin_hook, guarded
from streamt.runlineage.run import COMPLETE, CommandRun
from streamt.sdk.protocols import (
    ReceiptStateBackend,
    ReplacementPreparingDeployer,
    ReplacingDeployer,
    RunnerTimeoutDeployer,
)

BLOCKER_SUFFIX = "_reviewed_replacement"


def candidate(plan: Plan) -> Action | None:
    """The action a reviewed replacement is offered for (whatever else the plan holds)."""
    return next((a for a in plan.actions if "replacement" in a.evidence), None)


def ineligible_reason(plan: Plan, action: Action) -> str | None:
    """Why ``plan`` cannot be saved as format 6 (``None``: the replacement is its sole change)."""
    if plan.offline or plan.state is None:
        return "offline plans never authorize a replacement"
    if [a.identity for a in plan.mutations] != [action.identity]:
        return "the replacement must be the only change of the full project"
    if plan.ownership_requirements:
        return "the project has pending ownership decisions"
    if [(b.kind, b.identity) for b in plan.safety_blockers] != [(action.kind, action.identity)] or not (
        plan.safety_blockers[0].reason.endswith(BLOCKER_SUFFIX)
    ):
        return "the project has other safety blockers"
    return None


def next_commands(project: Any, out: str) -> list[str]:
    env = "" if project.env == "default" else f" --env {project.env}"
    return [f"streamt apply{env} --plan {out}"]


def prepare(
    project: Any, plan: Plan, out: str | None, deployers: Callable[[], Any]
) -> tuple[str, dict[str, Any] | None, dict[str, Any]] | tuple[None, None, None]:
    """``(plan-file field, binding or None, JSON field)`` for a ``plan`` command; ``(None, None, None)``
    when the plan offers no reviewed replacement. The field is the plan-file extension of the
    candidate's kind (``kafka_streams_replacement``: format 6).

    A preparation failure (the deployer cannot bind its live facts) raises before any file is written.
    """
    action = candidate(plan)
    if action is None:
        # A planner that refuses a replacement says why (``replacement_ineligible``), as the runner docs promise.
        refused = next((a for a in plan.actions if "replacement_ineligible" in a.evidence), None)
        extension = extension_for(refused.kind) if refused is not None else None
        if refused is None or extension is None:
            return None, None, None
        why = str(refused.evidence["replacement_ineligible"])
        return extension.key, None, {"eligible": False, "saved": False, "reason": why, "next_commands": []}
    extension = extension_for(action.kind)
    if extension is None:
        raise _no_coordinator(action.kind)
    reason = ineligible_reason(plan, action)
    if reason is not None:
        return extension.key, None, {"eligible": False, "saved": False, "reason": reason, "next_commands": []}
    deployer = deployers().get(action.kind)
    if not isinstance(deployer, ReplacementPreparingDeployer):
        raise _no_coordinator(action.kind)
    replacement = dict(action.evidence["replacement"])
    position = plan.actions.index(action)
    binding = {
        **replacement,
        **deployer.prepare_replacement(replacement),
        "action": {"identity": action.identity, "kind": action.kind, "name": action.name, "position": position},
        "resource_id": f"streamt://{plan.project}/{plan.environment}/{action.kind}/{action.name}",
    }
    field = {
        "eligible": True,
        "saved": out is not None,
        "reason": None,
        "identity": action.identity,
        "next_commands": next_commands(project, out) if out is not None else ["streamt plan --out FILE"],
    }
    return extension.key, binding, field


def replacement_text(field: dict[str, Any]) -> str:
    """The plan command's line about a reviewed replacement (saved, savable, or why not format 6)."""
    if not field["eligible"]:
        return f"Reviewed runner replacement: not format 6 ({field['reason']})."
    if field["saved"]:
        return "Reviewed runner replacement saved as format 6; run it with: " + "; ".join(field["next_commands"])
    return "Reviewed runner replacement possible: save it with `streamt plan --out FILE` (format 6)."


def reviewed_verifier(project_dir: str, env: str | None, reviewed: ReviewedPlan, backend: Any) -> Callable[[], None]:
    """Checked before every coordinator transition: project unchanged, state authority held."""

    def verify() -> None:
        project = load_project(project_dir, env)
        compiled = validate_and_compile(project).compiled
        expected = project_bindings(project, compiled)
        drifted = [key for key, value in expected.items() if reviewed.document.get(key) != value]
        if drifted:
            raise StreamtError(
                Codes.E409_PLAN_STALE,
                f"The project changed during the reviewed replacement ({', '.join(drifted)}).",
                "Restore the reviewed project files, then continue with `streamt state resume`.",
            )
        if hasattr(backend, "verify_lock"):
            backend.verify_lock()

    return verify


def require_sole_replacement(reviewed: ReviewedPlan, plan: Plan) -> Action:
    """The fresh plan's action the format-6 file binds (after ``verify_replan``), else ``E409``."""
    binding = reviewed.replacement or {}
    action = candidate(plan)
    if action is None or ineligible_reason(plan, action) is not None:
        raise StreamtError(
            Codes.E409_PLAN_STALE,
            f"The reviewed plan '{reviewed.path}' no longer describes one sole replacement.",
            "Create and review a new plan (streamt plan --out PATH).",
        )
    bound = {k: binding.get(k) for k in action.evidence["replacement"]}
    if bound != action.evidence["replacement"] or binding.get("action", {}).get("identity") != action.identity:
        raise StreamtError(
            Codes.E408_PLAN_FILE_INVALID,
            f"The '{_field(reviewed)}' binding of '{reviewed.path}' does not match its own action.",
            "Regenerate it with: streamt plan --out PATH, review it, then apply that file.",
        )
    return action


def _no_coordinator(kind: str) -> StreamtError:
    return StreamtError(
        Codes.E904_NOT_IMPLEMENTED,
        f"No installed plugin coordinates a reviewed replacement of {kind} artifacts.",
        "Install the provider plugin of this kind.",
    )


def _field(reviewed: ReviewedPlan) -> str:
    extension = reviewed.extension
    return extension[0] if extension is not None else "replacement"


def require_receipts(backend: Any) -> None:
    """A replacement ends in a completion receipt: a backend without receipts cannot run one (before any step)."""
    if not isinstance(backend, ReceiptStateBackend):
        raise StreamtError(
            Codes.E904_NOT_IMPLEMENTED,
            f"The {getattr(backend, 'name', 'configured')} deployment-state backend does not keep replacement "
            "receipts; reviewed runner replacements need the local or the PostgreSQL v2 backend.",
            "See docs/runner-replacement.md for the supported boundary.",
        )


def hand_runner_timeout(deployers: Any, seconds: float | None) -> None:
    """``apply --runner-timeout`` to every deployer that waits for a runner (``runner_timeout`` attribute)."""
    if seconds is None:
        return
    for deployer in deployers.values():
        if isinstance(deployer, RunnerTimeoutDeployer):
            deployer.runner_timeout = seconds


def apply_replacement(
    *,
    project_dir: str,
    env: str | None,
    compiled: Any,
    reviewed: ReviewedPlan,
    plan: Plan,
    backend: Any,
    deployers: Any,
    dry_run: bool,
    warnings: tuple[Any, ...],
    run: CommandRun | None = None,
) -> Result:
    """``apply --plan <format 6>`` after ``verify_replan``, under the lock: the coordinator, not the executor.

    ``run`` (``apply --emit-openlineage``) is the same lifecycle as an ordinary apply's: START once the
    durable intent exists (run ID = operation UUID), FAIL on any error (a lost acknowledgement too),
    COMPLETE after the verified commit and receipt, before the lock is released.
    """
    action = require_sole_replacement(reviewed, plan)
    binding = {**(reviewed.replacement or {}), "plan_checksum": reviewed.document["integrity"]["checksum"]}
    deployer = deployers.get(action.kind)
    if not isinstance(deployer, ReplacingDeployer):
        raise _no_coordinator(action.kind)
    require_receipts(backend)
    if dry_run:
        results = tuple((a, "would replace" if a is action else "unchanged") for a in plan.actions)
        data = apply_data(plan, results, None, reviewed.path)
        return Result("apply", data=data, text=f"Dry run: {action.identity} would be replaced.", warnings=warnings)
    artifact = next(a for a in compiled.artifacts if (a.kind, a.identity) == (action.kind, action.identity))
    verify = reviewed_verifier(project_dir, env, reviewed, backend)
    try:
        with reported(backend, plan.environment, str(reviewed.path), begin_hook(run)) as began, guarded(run):
            replaced = deployer.replace(backend, binding, artifact, verify, reviewed.path, env, on_begin=began)
    except StreamtError as exc:
        if run is None or not run.warnings:
            raise
        # Reported exactly as without emission, plus only the W112 delivery warnings.
        return Result("apply", data=exc.data, errors=tuple(exc.diagnostics), warnings=tuple(run.warnings))
    if run is not None:
        run.finish(COMPLETE)
    results = tuple((a, "replaced" if a is action else "unchanged") for a in plan.actions)
    report = ApplyReport(results, replaced["operation_id"], replaced["serial"], replaced["state_checksum"])
    data = {**apply_data(plan, results, report, reviewed.path), _field(reviewed): replaced}
    text = (
        f"Replaced runner {action.identity}: candidate {str(replaced['candidate_container_id'])[:12]} is RUNNING; "
        f"state serial {replaced['serial']}."
    )
    return Result("apply", data=data, text=text, warnings=warnings + tuple(run.warnings if run is not None else ()))
