"""`streamt state recovery-plan` and `streamt state recover`: the two-command reviewed recovery."""

from __future__ import annotations

import click

from streamt.cli.options import env_option, project_dir_option, quiet_option
from streamt.result import Result

_RESOLUTIONS = click.Choice(["observed", "rolled_back", "abandoned_before_mutation"])


@click.command("recovery-plan")
@project_dir_option
@env_option
@click.option("--resolution", required=True, type=_RESOLUTIONS, help="The exact outcome to record.")
@click.option("--out", "out", required=True, help="New recovery-evidence file (existing paths are refused).")
def recovery_plan_command(project_dir: str, env: str | None, resolution: str, out: str) -> Result:
    """Create reviewed evidence for one unfinished operation."""
    from pathlib import Path

    from streamt.plan.online import open_backend
    from streamt.project.loader import load_project
    from streamt.recovery.workflow import create
    from streamt.state.selection import WRITE

    target = Path(out)
    if target.is_symlink() or target.exists():
        from streamt.recovery.evidence import invalid

        raise invalid(
            f"{target.name} already exists; evidence files are never overwritten.", "Choose a new --out path."
        )
    project = load_project(project_dir, env)
    document = create(project, open_backend(project, WRITE), resolution, target)
    data = {
        "plan_file": str(target.absolute()),
        "blocked_operation_id": document["blocked_operation_id"],
        "recovery_operation_id": document["recovery_operation_id"],
        "resolution": resolution,
        "evidence_checksum": document["evidence_checksum"],
    }
    text = "\n".join(
        [
            f"Recovery evidence written to {data['plan_file']} (mode 0600).",
            f"  blocked operation: {data['blocked_operation_id']}",
            f"  resolution: {resolution}",
            f"  evidence checksum: {data['evidence_checksum']}",
            "Review it, then run `streamt state recover --plan FILE --confirm-operation-id ... "
            "--confirm-resolution ... --confirm-evidence-checksum ...`.",
        ]
    )
    return Result("state recovery-plan", data=data, text=text)


@click.command("recover")
@project_dir_option
@env_option
@click.option("--plan", "plan_path", required=True, help="Reviewed recovery-evidence file.")
@click.option("--confirm-operation-id", required=True, help="Exact blocked operation UUID from that file.")
@click.option(
    "--confirm-resolution",
    required=True,
    metavar="OUTCOME",
    help=f"Exact resolution from that file: {', '.join(_RESOLUTIONS.choices)}.",
)
@click.option("--confirm-evidence-checksum", required=True, help="Exact sha256: checksum from that file.")
@quiet_option
def recover_command(
    project_dir: str,
    env: str | None,
    plan_path: str,
    confirm_operation_id: str,
    confirm_resolution: str,
    confirm_evidence_checksum: str,
    quiet: bool,
) -> Result:
    """Execute one exact reviewed recovery."""
    from pathlib import Path

    from streamt.plan.online import open_backend
    from streamt.progress import Step, for_command, phase
    from streamt.project.loader import load_project
    from streamt.recovery import evidence as ev
    from streamt.recovery.workflow import execute
    from streamt.state.selection import WRITE

    ev.check_confirmations(confirm_operation_id, confirm_resolution, confirm_evidence_checksum)
    document = ev.read(Path(plan_path))
    confirmed = (document["blocked_operation_id"], document["resolution"], document["evidence_checksum"])
    if confirmed != (confirm_operation_id, confirm_resolution, confirm_evidence_checksum):
        raise ev.invalid("The confirmations do not match the recovery plan exactly.")
    project = load_project(project_dir, env)
    # One step: the re-observation of the targets and the commit run under the lock, inside execute.
    progress = for_command(quiet)
    try:
        with phase(progress, Step("recover", "operation", document["blocked_operation_id"])):
            data = execute(project, open_backend(project, WRITE), document)
    finally:
        progress.close()
    verb = "Recovered" if data["state_changed"] else "Recovered (ownership state unchanged)"
    text = (
        f"{verb}: operation {data['blocked_operation_id']} resolved as {data['resolution']}; "
        f"state serial {data['state_serial']}, control {data['control_status']}."
    )
    return Result("state recover", data=data, text=text)
