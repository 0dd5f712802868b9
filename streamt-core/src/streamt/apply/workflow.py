"""``streamt apply`` as named steps: gates, preparation, the lock, a fresh plan, then one way to change.

Each gate runs before the first thing it protects, in this order:

1. ``prepare`` — usage, the project, confirmation gates, the reviewed plan file (``--plan``),
   compilation, the OpenLineage preflight (``E506``), the reviewed bindings and the selection;
2. observers for every selected kind (``E903``/``E904``), then the state backend (``E420`` before
   the lock or any provider);
3. under the operation lock: a clear marker, the reviewed state and a fresh live plan (``replan``);
4. a format-6 reviewed replacement goes to its coordinator (``apply_replacement``); every other plan
   passes the policy gates (``refuse``) and is shown (``--dry-run``) or executed (``execute_plan``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from streamt.apply import gates
from streamt.apply.executor import deployers_by_kind, execute, require_deployers
from streamt.apply.interrupted import reported
from streamt.apply.render import apply_data, apply_text, dry_run_results, dry_run_text
from streamt.apply.replacement import apply_replacement, hand_runner_timeout
from streamt.apply.review import verify_bindings, verify_replan, verify_state
from streamt.apply.selection import select_artifacts
from streamt.artifacts import Artifact
from streamt.compile import CompiledProject, validate_and_compile
from streamt.errors import Diagnostic, StreamtError
from streamt.plan.engine import project_bindings
from streamt.plan.model import Plan
from streamt.plan.online import check_observable, local_state_warning, open_backend, plan_online
from streamt.plan.planfile import ReviewedPlan, read_plan_file, require_authorizing
from streamt.plan.tombstones import (
    refuse_reviewed_dry_run,
    refuse_unfulfilled,
    require_shared_state,
    with_tombstones,
)
from streamt.plugins import Plugins, get_plugins
from streamt.progress import for_command
from streamt.project.loader import load_project
from streamt.project.model import Project
from streamt.result import Result
from streamt.runlineage.lifecycle import apply_run, begin_hook, guarded
from streamt.runlineage.run import COMPLETE, CommandRun
from streamt.state.selection import WRITE


@attrs.frozen
class ApplyOptions:
    """What ``streamt apply`` was asked to do (its command-line options)."""

    project_dir: str
    env: str | None = None
    target: str | None = None
    select: str | None = None
    plan_path: str | None = None
    runner_timeout: float | None = None
    dry_run: bool = False
    confirm: bool = False
    confirm_env: str | None = None
    force: bool = False
    quiet: bool = False
    emit_openlineage: bool = False
    # The three shared OpenLineage namespace options, in the order ``apply_run`` takes them (validated only).
    openlineage_namespaces: tuple[str | None, str | None, str | None] = (None, None, None)


@attrs.frozen
class Prepared:
    """The project, compiled and selected, with the reviewed plan (``--plan``) and the OpenLineage run."""

    project: Project
    compiled: CompiledProject
    selected: tuple[Artifact, ...] | None  # None: every compiled artifact
    reviewed: ReviewedPlan | None
    run: CommandRun | None
    warnings: tuple[Diagnostic, ...]


def apply_project(options: ApplyOptions) -> Result:
    """Deploy: every gate before what it protects, then one change under the state's operation lock."""
    gates.check_usage(options.plan_path, options.target, options.select)
    prepared = prepare(options)
    plugins = get_plugins()
    project, compiled = prepared.project, prepared.compiled
    check_observable(project, prepared.selected if prepared.selected is not None else compiled.artifacts, plugins)
    backend = open_backend(project, WRITE)
    require_shared_state(compiled.artifacts, backend, plugins)  # E420 before the lock or any service
    warnings = prepared.warnings + local_state_warning(backend)
    with backend.operation_lock():
        plan = replan(prepared, backend, plugins)
        reviewed = prepared.reviewed
        if reviewed is not None and reviewed.replacement is not None:
            # Format 6: the dedicated coordinator under this lock; no generic executor or rollback.
            deployers = deployers_by_kind(plugins, project.runtime)
            hand_runner_timeout(deployers, options.runner_timeout)
            return apply_replacement(
                project_dir=options.project_dir,
                env=options.env,
                compiled=compiled,
                reviewed=reviewed,
                plan=plan,
                backend=backend,
                deployers=deployers,
                dry_run=options.dry_run,
                warnings=warnings,
                run=prepared.run,
            )
        refuse(options, prepared, plan)
        if options.dry_run:
            return Result(
                "apply",
                data=apply_data(plan, dry_run_results(plan), None, options.plan_path),
                text=dry_run_text(plan),
                warnings=warnings,
            )
        return execute_plan(options, prepared, plan, backend, plugins, warnings)


def prepare(options: ApplyOptions) -> Prepared:
    """The project after the gates that need no state or provider, compiled, with its selection."""
    project = load_project(options.project_dir, options.env)
    gates.check_confirm_env(project, options.confirm_env)
    gates.require_reviewed_plan(project, options.plan_path)
    refuse_reviewed_dry_run(project, options.plan_path, options.dry_run)
    reviewed = require_authorizing(read_plan_file(Path(options.plan_path))) if options.plan_path else None
    gates.require_remote_state(project)
    gates.confirm(project, options.confirm, options.confirm_env, options.dry_run)
    loaded = validate_and_compile(project)
    # Telemetry preflight (E506) happens before any state or provider access; --dry-run emits nothing.
    emit = options.emit_openlineage and not options.dry_run
    run = apply_run(project, emit, *options.openlineage_namespaces)
    compiled = loaded.compiled
    if reviewed is not None:
        verify_bindings(reviewed, project_bindings(project, compiled))
    selected = with_tombstones(compiled, select_artifacts(project, compiled, options.target, options.select))
    return Prepared(project, compiled, selected, reviewed, run, loaded.warnings)


def replan(prepared: Prepared, backend: Any, plugins: Plugins) -> Plan:
    """Under the lock: a clear marker, the state the reviewed plan saw, and a fresh live plan it still matches."""
    backend.require_clear()
    reviewed = prepared.reviewed
    if reviewed is not None:
        verify_state(reviewed, backend.status())
    plan, _ = plan_online(prepared.project, prepared.compiled, backend, prepared.selected, plugins)
    if reviewed is not None:
        verify_replan(reviewed, plan)
    return plan


def refuse(options: ApplyOptions, prepared: Prepared, plan: Plan) -> None:
    """The policy gates on the fresh plan (``E418``, ``E417``, ``E410``), before any mutation."""
    if prepared.reviewed is None:
        refuse_unfulfilled(prepared.project, plan)  # before E417/E410: a pending removal needs the reviewed workflow
    gates.refuse_blocked(plan)
    gates.refuse_unauthorized(plan, prepared.reviewed is not None, options.force)


def execute_plan(
    options: ApplyOptions,
    prepared: Prepared,
    plan: Plan,
    backend: Any,
    plugins: Plugins,
    warnings: tuple[Diagnostic, ...],
) -> Result:
    """The durable executor over the plan's mutations; OpenLineage START/COMPLETE/FAIL around it."""
    project, run = prepared.project, prepared.run
    deployers = deployers_by_kind(plugins, project.runtime)
    hand_runner_timeout(deployers, options.runner_timeout)
    require_deployers(plan, deployers)
    artifacts = {(a.kind, a.identity): a for a in prepared.compiled.artifacts}
    progress = for_command(options.quiet)
    try:
        with reported(backend, project.env, options.plan_path, begin_hook(run)) as began, guarded(run):
            report = execute(plan, artifacts, deployers, backend, on_begin=began, progress=progress)
    except StreamtError as exc:
        if run is None or not run.warnings:
            raise
        # Reported exactly as without emission, plus only the W112 delivery warnings.
        return Result("apply", data=exc.data, errors=tuple(exc.diagnostics), warnings=tuple(run.warnings))
    finally:
        progress.close()
    if run is not None:
        run.finish(COMPLETE)  # after the confirmed commit and marker clear; a no-op run never started
    return Result(
        "apply",
        data=apply_data(plan, report.results, report, options.plan_path),
        text=apply_text(report),
        warnings=warnings + tuple(run.warnings if run is not None else ()),
    )
