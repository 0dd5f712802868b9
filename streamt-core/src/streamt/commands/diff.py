"""`streamt diff`: local definitions against deployed state, read-only."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import changes_exit, detailed_exitcode_option, env_option, project_dir_option
from streamt.result import Result


def diff_text(plan: Any, unobserved: list[Any]) -> str:
    from streamt.compile.order import kind_rank
    from streamt.plan.render import section_title

    words = {"create": "new", "noop": "no changes"}
    symbols = {"create": "+", "update": "~", "noop": "=", "delete": "-", "adopt": "&"}
    lines: list[str] = []
    kinds = sorted({a.kind for a in plan.actions} | {a.kind for a in unobserved}, key=kind_rank)
    for kind in kinds:
        lines += [f"{section_title(kind)}:"]
        for action in (a for a in plan.actions if a.kind == kind):
            detail = action.summary if action.action == "update" else words.get(action.action, action.action)
            if action.ownership == "external":
                detail = "external: not compared"
            lines.append(f"  {symbols[action.action]} {action.identity}: {detail}")
        lines += [f"  ? {a.identity}: not observed (no live reader yet)" for a in unobserved if a.kind == kind]
        lines.append("")
    for blocker in plan.safety_blockers:
        lines.append(f"! {blocker.kind} {blocker.identity}: {blocker.message}")
    for requirement in plan.ownership_requirements:
        lines.append(f"? {requirement.kind} {requirement.identity}: {requirement.message}")
    return "\n".join(lines).rstrip() or "No artifacts."


@click.command("diff")
@project_dir_option
@env_option
@detailed_exitcode_option
def diff_command(project_dir: str, env: str | None, detailed_exitcode: bool) -> Result:
    """Compare local definitions against deployed state."""
    from streamt.compile import load_and_compile
    from streamt.plan.observe import observers_by_kind
    from streamt.plan.online import local_state_warning, open_backend, plan_online
    from streamt.plan.render import plan_data
    from streamt.plugins import get_plugins
    from streamt.state.selection import READ

    loaded = load_and_compile(project_dir, env)
    plugins = get_plugins()
    observers = observers_by_kind(plugins, loaded.project.runtime)
    # Unlike plan, diff is informational: kinds nobody can read yet are shown as such.
    readable = tuple(a for a in loaded.compiled.artifacts if a.ownership == "external" or a.kind in observers)
    unobserved = [a for a in loaded.compiled.artifacts if a not in readable]
    backend = open_backend(loaded.project, READ)
    plan, operation_status = plan_online(loaded.project, loaded.compiled, backend, readable, plugins)
    data = plan_data(plan, None, operation_status)
    data["not_observed"] = [{"kind": a.kind, "identity": a.identity, "name": a.name} for a in unobserved]
    warnings = loaded.warnings + local_state_warning(backend)
    # What could not be read may have drifted: for CI it counts as a change (fail closed).
    exit_code = changes_exit(detailed_exitcode, plan.has_changes or bool(unobserved))
    return Result("diff", data=data, text=diff_text(plan, unobserved), warnings=warnings, force_exit=exit_code)
