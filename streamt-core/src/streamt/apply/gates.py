"""Apply's gates, in the order the CLI reference fixes.

1. usage (``--plan`` with ``--target``/``--select``) and a ``--confirm-env``
   that names another environment — before any file, state or provider access;
2. reviewed-plan policy (``E418``) and the plan file itself (``E408``);
3. remote-state policy (``E421``), before confirmation and compilation;
4. confirmation (interactive prompt, ``--confirm`` or ``--confirm-env``);
5. after live planning: safety blockers (``E417``) and ownership decisions
   (``E410``), before the first mutation. ``--force`` bypasses none of them.

A missing confirmation in a non-interactive run is ``E900_USAGE_ERROR``:
the seed has no dedicated code, ``E414`` is about adoption targets and
``E418`` about reviewed plans; the fix is a flag, i.e. a usage problem.
"""

from __future__ import annotations

import sys
from typing import Any

from streamt.errors import Codes, StreamtError
from streamt.plan.model import Plan


def check_usage(plan_path: str | None, target: str | None, select: str | None) -> None:
    if plan_path is not None and (target or select):
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            "--target and --select cannot be combined with --plan: a reviewed plan is applied exactly as reviewed.",
            "Create a new plan for the resources you want, or apply the reviewed plan as it is.",
        )


def check_confirm_env(project: Any, confirm_env: str | None) -> None:
    """``E900`` when ``--confirm-env`` names another environment than the one selected."""
    if confirm_env is not None and confirm_env != project.env:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"--confirm-env {confirm_env!r} does not match the target environment {project.env!r}.",
            "Pass the exact name of the environment you mean to change.",
        )


def require_reviewed_plan(project: Any, plan_path: str | None) -> None:
    environment = project.environment
    if plan_path is None and (environment.protected or environment.safety.require_reviewed_plan):
        why = "is protected" if environment.protected else "sets safety.require_reviewed_plan"
        raise StreamtError(
            Codes.E418_REVIEWED_PLAN_REQUIRED,
            f"Environment {project.env!r} {why}: direct apply is disabled.",
            f"Run `streamt plan{project.environment.cli_option} --out {project.env}.plan.json`, review it, then "
            f"`streamt apply{project.environment.cli_option} --plan {project.env}.plan.json`.",
        )


def require_remote_state(project: Any) -> None:
    """``E421`` when the environment requires remote state and the project uses ``local``."""
    if project.environment.safety.require_remote_state and project.deployment_state.backend == "local":
        raise StreamtError(
            Codes.E421_REMOTE_STATE_REQUIRED,
            f"Environment {project.env!r} sets safety.require_remote_state, but deployment state is local.",
            "Configure deployment_state.backend: postgres for this environment.",
        )


def confirm(project: Any, confirmed: bool, confirm_env: str | None, dry_run: bool) -> None:
    """Ask, or require a flag, when the environment wants confirmation (a dry run changes nothing)."""
    if dry_run or not project.environment.confirm_apply or confirmed or confirm_env is not None:
        return
    if not sys.stdin.isatty():
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"Applying to {project.env!r} needs confirmation, and this session is not interactive.",
            f"Pass --confirm-env {project.env} (verifies the name) or --confirm.",
        )
    import click

    typed = click.prompt(f"Type the environment name ({project.env}) to apply", default="", err=True)
    if typed != project.env:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            "The typed name does not match the environment; nothing was applied.",
            f"Type {project.env!r} exactly, or pass --confirm-env {project.env}.",
        )


def refuse_unauthorized(plan: Plan, reviewed: bool, force: bool) -> None:
    """Actions whose planner asked for more than a direct apply (``evidence.requires``).

    ``reviewed_plan``: only ``apply --plan`` of a saved online plan may run it (a Flink savepoint
    upgrade); ``force``: it drops something, so ``--force`` must say so (a stateless resubmit).
    """
    # Only a multi-environment project names an environment other than `default` (and takes --env).
    env = f" --env {plan.environment}" if plan.environment != "default" else ""
    for action in plan.mutations:
        requires = action.evidence.get("requires") or ()
        if "reviewed_plan" in requires and not reviewed:
            raise StreamtError(
                Codes.E418_REVIEWED_PLAN_REQUIRED,
                f"{action.kind} '{action.identity}' ({action.summary}) runs only from a reviewed plan.",
                f"Run `streamt plan{env} --out PLAN.json`, review it, then `streamt apply{env} --plan PLAN.json`.",
            )
        if "force" in requires and not force:
            raise StreamtError(
                Codes.E900_USAGE_ERROR,
                f"{action.kind} '{action.identity}' ({action.summary}) needs --force.",
                "Review what the plan says it drops, then pass --force to apply it.",
            )


# The reference refuses every unsupported migration with E417, and also names dedicated codes for two of
# them: each such blocker in the E417 details carries its code. Only the error gets it: plan output and
# reviewed-plan files keep their checksummed shape.
_BLOCKER_CODES = {
    "kafka_partition_reduction": Codes.E401_CANNOT_REDUCE_PARTITIONS,
    "schema_incompatible": Codes.E402_SCHEMA_INCOMPATIBLE,
}


_DECIDE = (
    "Declare them ownership.mode: adopted and run `streamt adopt`, declare them external, or rename the declaration."
)


def refuse_blocked(plan: Plan) -> None:
    """``E417`` for unsupported migrations, then ``E410`` for ownership decisions; never forceable."""
    if plan.safety_blockers:
        reasons = ", ".join(f"{b.reason} ({b.identity})" for b in plan.safety_blockers)
        blockers = [
            {**b.to_json(), "code": _BLOCKER_CODES[b.reason].code} if b.reason in _BLOCKER_CODES else b.to_json()
            for b in plan.safety_blockers
        ]
        # Each blocker's own fix; without one, its message (which the plan text shows too) says what to do.
        fixes = "; ".join(f"{b.identity}: {b.suggestion or b.message.rstrip('.')}" for b in plan.safety_blockers)
        raise StreamtError(
            Codes.E417_SAFETY_BLOCKED,
            f"Apply refused before any change: {reasons}.",
            f"--force does not bypass these. {fixes}.",
            details={"safety_blockers": blockers},
        )
    if plan.ownership_requirements:
        names = ", ".join(
            f"{r.kind} {r.identity}" + (f" ({r.owner})" if r.owner else "") for r in plan.ownership_requirements
        )
        # A declaration already adopted has one step left (its own suggestion); the others get the choice.
        steps = [f"{r.identity}: {r.suggestion}." for r in plan.ownership_requirements if r.suggestion is not None]
        if any(r.suggestion is None for r in plan.ownership_requirements):
            steps.append(_DECIDE)
        raise StreamtError(
            Codes.E410_OWNERSHIP_REQUIRED,
            f"Live resources need an explicit ownership decision before apply: {names}.",
            " ".join(steps),
            details={"ownership_requirements": [r.to_json() for r in plan.ownership_requirements]},
        )
