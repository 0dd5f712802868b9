"""`streamt apply`: gates, reviewed-plan verification, live re-plan, durable execution."""

from __future__ import annotations

import click

from streamt.cli.options import env_option, project_dir_option, quiet_option
from streamt.errors import StreamtError
from streamt.result import Result
from streamt.runlineage.lifecycle import apply_run, begin_hook, guarded
from streamt.runlineage.options import openlineage_options
from streamt.runlineage.run import COMPLETE


@click.command("apply")
@project_dir_option
@env_option
@click.option("--target", default=None, help="Deploy only the artifacts of one model or source.")
@click.option("--select", "select", default=None, help="Filter by tag or selector (tag:x, name, +name, name+).")
@click.option("--plan", "plan_path", default=None, help="Verify and apply a saved reviewed-plan file.")
@click.option(
    "--runner-timeout",
    type=click.FloatRange(min=0, min_open=True, max=600),
    default=None,
    help="Bound each Kafka Streams runner wait, in seconds (0 < s <= 600; default: STREAMT_RUNNER_TIMEOUT, else "
    "60). Not a total command deadline.",
)
@click.option("--dry-run", is_flag=True, help="Show what would be deployed; change nothing.")
@click.option("--confirm", is_flag=True, help="Skip the confirmation prompt for protected environments.")
@click.option("--confirm-env", default=None, help="Non-interactive confirmation: the environment name, verified.")
@click.option(
    "--force",
    is_flag=True,
    help="Allow destructive operations the environment policy does not permit (a stateless Flink "
    "resubmit, the delete of a reviewed removal tombstone). Never bypasses E417 (partition reduction, "
    "incompatible schema).",
)
@quiet_option
@openlineage_options(
    kafka_help="Validated shared Kafka namespace option; apply emits no datasets.",
    gateway_help="Validated shared Gateway namespace option; apply emits no datasets.",
)
def apply_command(
    project_dir: str,
    env: str | None,
    target: str | None,
    select: str | None,
    plan_path: str | None,
    runner_timeout: float | None,
    dry_run: bool,
    confirm: bool,
    confirm_env: str | None,
    force: bool,
    quiet: bool,
    emit_openlineage: bool,
    ol_job_namespace: str | None,
    ol_kafka_namespace: str | None,
    ol_gateway_namespace: str | None,
) -> Result:
    """Deploy artifacts to infrastructure."""
    from pathlib import Path

    from streamt.apply import gates
    from streamt.apply.executor import deployers_by_kind, execute, require_deployers
    from streamt.apply.interrupted import reported
    from streamt.apply.render import apply_data, apply_text, dry_run_results, dry_run_text
    from streamt.apply.replacement import apply_replacement, hand_runner_timeout
    from streamt.apply.review import verify_bindings, verify_replan, verify_state
    from streamt.apply.selection import select_artifacts
    from streamt.compile import validate_and_compile
    from streamt.plan.engine import project_bindings
    from streamt.plan.online import check_observable, local_state_warning, open_backend, plan_online
    from streamt.plan.planfile import read_plan_file, require_authorizing
    from streamt.plan.tombstones import (
        refuse_reviewed_dry_run,
        refuse_unfulfilled,
        require_shared_state,
        with_tombstones,
    )
    from streamt.plugins import get_plugins
    from streamt.progress import for_command
    from streamt.project.loader import load_project
    from streamt.state.selection import WRITE

    gates.check_usage(plan_path, target, select)
    project = load_project(project_dir, env)
    gates.check_confirm_env(project, confirm_env)
    gates.require_reviewed_plan(project, plan_path)
    refuse_reviewed_dry_run(project, plan_path, dry_run)
    reviewed = require_authorizing(read_plan_file(Path(plan_path))) if plan_path else None
    gates.require_remote_state(project)
    gates.confirm(project, confirm, confirm_env, dry_run)
    loaded = validate_and_compile(project)
    # Telemetry preflight (E506) happens before any state or provider access; --dry-run emits nothing.
    run = apply_run(
        project, emit_openlineage and not dry_run, ol_job_namespace, ol_kafka_namespace, ol_gateway_namespace
    )
    compiled = loaded.compiled
    if reviewed is not None:
        verify_bindings(reviewed, project_bindings(project, compiled))
    selected = with_tombstones(compiled, select_artifacts(project, compiled, target, select))
    plugins = get_plugins()
    check_observable(project, selected if selected is not None else compiled.artifacts, plugins)
    backend = open_backend(project, WRITE)
    require_shared_state(compiled.artifacts, backend, plugins)  # E420 before the lock or any service
    warnings = loaded.warnings + local_state_warning(backend)
    with backend.operation_lock():
        backend.require_clear()
        if reviewed is not None:
            verify_state(reviewed, backend.status())
        plan, _ = plan_online(project, compiled, backend, selected, plugins)
        if reviewed is not None:
            verify_replan(reviewed, plan)
        if reviewed is not None and reviewed.replacement is not None:
            # Format 6: the dedicated coordinator under this lock; no generic executor or rollback.
            deployers = deployers_by_kind(plugins, project.runtime)
            hand_runner_timeout(deployers, runner_timeout)
            return apply_replacement(
                project_dir=project_dir,
                env=env,
                compiled=compiled,
                reviewed=reviewed,
                plan=plan,
                backend=backend,
                deployers=deployers,
                dry_run=dry_run,
                warnings=warnings,
                run=run,
            )
        if reviewed is None:
            refuse_unfulfilled(project, plan)  # before E417/E410: a pending removal needs the reviewed workflow
        gates.refuse_blocked(plan)
        gates.refuse_unauthorized(plan, reviewed is not None, force)
        if dry_run:
            return Result(
                "apply",
                data=apply_data(plan, dry_run_results(plan), None, plan_path),
                text=dry_run_text(plan),
                warnings=warnings,
            )
        deployers = deployers_by_kind(plugins, project.runtime)
        hand_runner_timeout(deployers, runner_timeout)
        require_deployers(plan, deployers)
        artifacts = {(a.kind, a.identity): a for a in compiled.artifacts}
        progress = for_command(quiet)
        try:
            with reported(backend, project.env, plan_path, begin_hook(run)) as began, guarded(run):
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
        data=apply_data(plan, report.results, report, plan_path),
        text=apply_text(report),
        warnings=warnings + tuple(run.warnings if run is not None else ()),
    )
