"""`streamt plan`: ordered actions from live state; ``--offline`` plans without contacting anything."""

from __future__ import annotations

import click

from streamt.cli.options import changes_exit, detailed_exitcode_option, env_option, project_dir_option
from streamt.result import Result


@click.command("plan")
@project_dir_option
@env_option
@click.option("--offline", is_flag=True, help="Plan without connecting to infrastructure (assumes fresh deploy).")
@click.option("--out", "out", default=None, help="Atomically save a deterministic reviewed-plan JSON file.")
@detailed_exitcode_option
def plan_command(project_dir: str, env: str | None, offline: bool, out: str | None, detailed_exitcode: bool) -> Result:
    """Show planned changes without applying them."""
    from pathlib import Path

    from streamt.apply.executor import deployers_by_kind
    from streamt.apply.replacement import prepare, replacement_text
    from streamt.collector import collector_paused
    from streamt.compile import load_and_compile
    from streamt.plan import plan_data, plan_offline, plan_text, write_plan_file
    from streamt.plan.online import local_state_warning, open_backend, plan_online
    from streamt.plan.tombstones import refuse_offline
    from streamt.plugins import get_plugins
    from streamt.state.selection import WRITE

    loaded = load_and_compile(project_dir, env, lazy_secrets=offline)  # an online plan connects
    warnings = loaded.warnings
    plugins = get_plugins()
    if offline:
        refuse_offline(loaded.project)
        with collector_paused():  # as compiling was: the plan's objects live until the command ends
            plan = plan_offline(loaded.project, loaded.compiled, plugins)
        operation_status: dict[str, object] | str = "unavailable"
    else:
        # Planning is read-only, but its state reference must come from the
        # authority apply will use (PostgreSQL: the writer), so open it for writing.
        backend = open_backend(loaded.project, WRITE)
        warnings += local_state_warning(backend)
        plan, operation_status = plan_online(loaded.project, loaded.compiled, backend, plugins=plugins)
    # A sole reviewed runner replacement binds its live facts now; failing that, nothing is written.
    field, binding, replacement = (
        (None, None, None)
        if offline
        else prepare(loaded.project, plan, out, lambda: deployers_by_kind(plugins, loaded.project.runtime))
    )
    if out is not None:
        write_plan_file(plan, Path(out), (field, binding) if field is not None and binding is not None else None)
    data = plan_data(plan, out, operation_status)
    text = plan_text(plan, out)
    if field is not None and replacement is not None:
        data[field] = replacement
        text += "\n" + replacement_text(replacement)
    return Result(
        "plan",
        data=data,
        text=text,
        warnings=warnings,
        force_exit=changes_exit(detailed_exitcode, plan.has_changes),
    )
