"""`streamt plan`: ordered actions; ``--offline`` plans a fresh deployment without contacting anything."""

from __future__ import annotations

import click

from streamt.cli.options import env_option, project_dir_option
from streamt.errors import Codes, StreamtError
from streamt.result import Result


@click.command("plan")
@project_dir_option
@env_option
@click.option("--offline", is_flag=True, help="Plan without connecting to infrastructure (assumes fresh deploy).")
@click.option("--out", "out", default=None, help="Atomically save a deterministic reviewed-plan JSON file.")
def plan_command(project_dir: str, env: str | None, offline: bool, out: str | None) -> Result:
    """Show planned changes without applying them."""
    from pathlib import Path

    from streamt.compile import load_and_compile
    from streamt.plan import plan_data, plan_offline, plan_text, write_plan_file

    if not offline:
        raise StreamtError(
            Codes.E904_NOT_IMPLEMENTED,
            "Online planning (reading live Kafka, Schema Registry, Flink, Connect and Gateway state) "
            "is not implemented in this release.",
            "Use `streamt plan --offline` to preview a fresh deployment; it cannot authorize apply.",
        )
    loaded = load_and_compile(project_dir, env)
    plan = plan_offline(loaded.project, loaded.compiled)
    if out is not None:
        write_plan_file(plan, Path(out))
    return Result("plan", data=plan_data(plan, out), text=plan_text(plan, out), warnings=loaded.warnings)
