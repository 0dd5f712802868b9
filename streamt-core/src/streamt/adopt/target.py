"""Which artifact an adoption claims, and the exact confirmation it needs."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.sdk.protocols import AdoptionObserver, Observer

SUPPORTED_KINDS = ("topic", "schema", "connector", "gateway_rule")


def token(resource_id: str, env: str) -> str:
    """What an operator types interactively: the full resource ID and the environment."""
    return f"{resource_id} {env}"


def check_flags(confirm_resource: str | None, confirm_env: str | None) -> None:
    """Half a confirmation is malformed: refuse it before anything is read."""
    if (confirm_resource is None) != (confirm_env is None):
        raise _confirmation("Non-interactive adoption needs both --confirm-resource and --confirm-env.")


def check_confirmation(resource_id: str, env: str, confirm_resource: str | None, confirm_env: str | None) -> bool:
    """``True`` when exact flags confirm; ``False`` when an interactive prompt must; ``E414`` otherwise."""
    if confirm_resource is not None or confirm_env is not None:
        if confirm_resource != resource_id or confirm_env != env:
            raise _confirmation("--confirm-resource/--confirm-env do not name this resource and environment exactly.")
        return True
    if not sys.stdin.isatty():
        raise _confirmation(
            "Adoption needs confirmation, and this session is not interactive.",
        )
    return False


def prompt(resource_id: str, env: str) -> None:
    import click

    expected = token(resource_id, env)
    typed = click.prompt(f"Type '{expected}' to adopt", default="", err=True)
    if typed != expected:
        raise _confirmation("The typed confirmation does not match; nothing was adopted.")


def _confirmation(message: str) -> StreamtError:
    return StreamtError(
        Codes.E414_ADOPTION_CONFIRMATION_REQUIRED,
        message,
        "Pass --confirm-resource streamt://<project>/<env>/<kind>/<name> and --confirm-env <env> exactly, "
        "or type the token interactively.",
    )


def resolve(artifacts: tuple[Artifact, ...], kind: str, name: str) -> Artifact:
    found = [a for a in artifacts if a.kind == kind and a.name == name]
    if len(found) != 1:
        what = "no" if not found else f"{len(found)}"
        raise StreamtError(
            Codes.E412_ADOPTION_TARGET_INVALID,
            f"--name {name!r} resolves to {what} compiled {kind} artifact(s); exactly one is required.",
            "--name is the logical declaration name (source or model), not the physical topic or subject.",
        )
    artifact = found[0]
    if artifact.ownership != "adopted":
        raise StreamtError(
            Codes.E412_ADOPTION_TARGET_INVALID,
            f"{kind} {name!r} is declared ownership.mode: {artifact.ownership}, not adopted.",
            "Declare `ownership: {mode: adopted}` on it before adopting.",
        )
    return artifact


def observer_for(observers: Mapping[str, Observer], kind: str) -> AdoptionObserver:
    observer = observers.get(kind)
    if not isinstance(observer, AdoptionObserver):
        raise StreamtError(
            Codes.E903_PLUGIN_REQUIRED,
            f"No installed plugin can review {kind} resources for adoption.",
            f"Install the plugin of {kind} resources (`streamt plugins` lists what is installed).",
        )
    return observer
