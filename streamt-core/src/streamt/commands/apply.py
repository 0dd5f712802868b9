"""`streamt apply`: gates, reviewed-plan verification, live re-plan, durable execution."""

from __future__ import annotations

import click

from streamt.cli.options import env_option, project_dir_option, quiet_option
from streamt.result import Result
from streamt.runlineage.options import openlineage_options


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
    from streamt.apply.workflow import ApplyOptions, apply_project

    return apply_project(
        ApplyOptions(
            project_dir=project_dir,
            env=env,
            target=target,
            select=select,
            plan_path=plan_path,
            runner_timeout=runner_timeout,
            dry_run=dry_run,
            confirm=confirm,
            confirm_env=confirm_env,
            force=force,
            quiet=quiet,
            emit_openlineage=emit_openlineage,
            openlineage_namespaces=(ol_job_namespace, ol_kafka_namespace, ol_gateway_namespace),
        )
    )
