"""`streamt adopt`: claim one existing declared topic, schema subject, connector or alias-only
Gateway rule (ownership state only)."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import env_option, project_dir_option
from streamt.result import Result


@click.command("adopt")
@project_dir_option
@env_option
@click.option(
    "--kind", required=True, type=click.Choice(["topic", "schema", "connector", "gateway_rule"]), help="Resource kind."
)
@click.option("--name", required=True, help="Logical declaration name (not the physical topic or subject).")
@click.option(
    "--confirm-resource", default=None, help="Exact resource ID, e.g. streamt://<project>/<env>/topic/<name>."
)
@click.option("--confirm-env", default=None, help="Exact environment name.")
def adopt_command(
    project_dir: str, env: str | None, kind: str, name: str, confirm_resource: str | None, confirm_env: str | None
) -> Result:
    """Claim an existing declared resource for lifecycle management."""
    from streamt.adopt import claim
    from streamt.adopt import target as tgt
    from streamt.apply.gates import require_remote_state
    from streamt.artifacts import resource_id as make_id
    from streamt.compile import validate_and_compile
    from streamt.plan.engine import planners_by_kind
    from streamt.plan.online import check_observable, open_backend
    from streamt.plugins import get_plugins
    from streamt.project.loader import load_project
    from streamt.state.selection import WRITE

    project = load_project(project_dir, env)
    # The reference orders the remote-state gate (E421) before any confirmation check (E414).
    require_remote_state(project)
    tgt.check_flags(confirm_resource, confirm_env)
    resource = make_id(project.name, project.env, kind, name)
    confirmed = confirm_resource is not None
    if confirmed:
        tgt.check_confirmation(resource, project.env, confirm_resource, confirm_env)
    loaded = validate_and_compile(project)
    artifact = tgt.resolve(loaded.compiled.artifacts, kind, name)
    plugins = get_plugins()
    observer = tgt.observer_for(check_observable(project, (artifact,), plugins), kind)
    planner = planners_by_kind(plugins).get(kind)
    backend = open_backend(project, WRITE)
    with backend.operation_lock():
        backend.require_clear()
        held = claim.existing_claim(backend.read_state(), artifact, resource)
        if held is None and not confirmed:
            tgt.check_confirmation(resource, project.env, None, None)  # E414 before any provider access
        observation, live, pending = claim.observe(observer, planner, artifact)
        review = _review(resource, project.env, artifact, live, pending)
        if held is not None:
            status = backend.status()
            data = {**review, "adopted": False, "state_changed": False, "serial": status["serial"]}
            return Result("adopt", data=data, text=_text(review, "Already adopted; nothing changed."))
        if not confirmed:
            click.echo(_text(review, ""), err=True)
            tgt.prompt(resource, project.env)
        # Re-read after confirmation: the claim must still be free (we hold the lock, but stay exact),
        # and a resource with an exact read must still be what was reviewed.
        claim.existing_claim(backend.read_state(), artifact, resource)
        claim.reconfirm(observer, artifact, observation)
        operation_id, state = claim.commit(backend, artifact, resource, claim.record_attributes(observer, artifact))
    data = {
        **review,
        "adopted": True,
        "state_changed": True,
        "operation_id": operation_id,
        "serial": state.serial,
        "state_checksum": state.checksum,
    }
    after = f"Adopted {resource} (serial {state.serial}). Run `streamt plan --out ...` and review it before applying."
    return Result("adopt", data=data, text=_text(review, after))


def _review(resource: str, env: str, artifact: Any, live: dict[str, Any], pending: list[Any]) -> dict[str, Any]:
    return {
        "resource_id": resource,
        "environment": env,
        "kind": artifact.kind,
        "name": artifact.name,
        "identity": artifact.identity,
        "live": live,
        "pending_changes": pending,
    }


def _text(review: dict[str, Any], footer: str) -> str:
    lines = [f"Adopt {review['resource_id']} ({review['kind']} '{review['identity']}') in {review['environment']}"]
    for key, value in review["live"].items():
        lines.append(f"  {key}: {value}")
    if review["pending_changes"]:
        lines.append("Pending differences (apply after a reviewed plan):")
        lines += [f"  - {p.get('summary') or p.get('message')}" for p in review["pending_changes"]]
    else:
        lines.append("No pending differences.")
    if footer:
        lines.append(footer)
    return "\n".join(lines)
