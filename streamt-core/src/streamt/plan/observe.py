"""Reading live state for online plans, through the ``streamt_observers`` hook.

Only managed and adopted artifacts are observed; external declarations never
cause a live read. A kind that some artifact needs but no observer handles
fails closed before any client is built: its absence live could not be told
apart from "not looked at", and planning it as a create would be a lie.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from streamt import kinds
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.kinds import KindTable
from streamt.plan.model import Observation
from streamt.plan.tombstones import REMOVAL_SUFFIX
from streamt.plugins import Plugins

if TYPE_CHECKING:
    from streamt.project.model import Runtime
    from streamt.sdk.protocols import Observer


def observers_by_kind(plugins: Plugins, runtime: Runtime) -> KindTable[Observer]:
    """The observer for each kind (observers build clients lazily); a kind two plugins claim is E906."""
    return kinds.observers(plugins, runtime)


def observed_artifacts(artifacts: Iterable[Artifact]) -> list[Artifact]:
    return [a for a in artifacts if a.ownership != "external"]


def require_observers(artifacts: Iterable[Artifact], observers: dict[str, Any]) -> None:
    """``E904`` naming every kind that cannot be read live.

    The artifacts were compiled, so their provider plugin is installed; it
    just has no observer yet (E903 would send users to install what they have).
    """
    if isinstance(observers, KindTable):
        observers.require(a.kind for a in observed_artifacts(artifacts))
    missing = sorted({a.kind for a in observed_artifacts(artifacts)} - set(observers))
    removals = [kind for kind in missing if kind.endswith(REMOVAL_SUFFIX)]
    if removals:
        # Never the generic advice below: an offline plan or a narrowed apply cannot remove anything.
        raise StreamtError(
            Codes.E904_NOT_IMPLEMENTED,
            f"Reviewed removal ({', '.join(removals)} tombstones) is not implemented in this release: "
            "nothing can assess or delete the tombstone's target.",
            "Remove the lifecycle tombstone to plan the rest of the project; delete the resource by hand if needed.",
        )
    if missing:
        providers = sorted({a.provider for a in observed_artifacts(artifacts) if a.kind in missing})
        raise StreamtError(
            Codes.E904_NOT_IMPLEMENTED,
            f"Online planning of {', '.join(missing)} artifacts is not implemented yet by "
            f"{', '.join(providers)}: their live state cannot be read.",
            "Plan them offline (`streamt plan --offline`), or narrow apply with --target/--select to "
            "topics and schemas.",
        )


def observe(artifacts: Iterable[Artifact], observers: dict[str, Any]) -> dict[tuple[str, str], Observation]:
    """One ``observe`` call per kind; every observed artifact must get an observation."""
    by_kind: dict[str, list[Artifact]] = {}
    for artifact in observed_artifacts(artifacts):
        by_kind.setdefault(artifact.kind, []).append(artifact)
    observations: dict[tuple[str, str], Observation] = {}
    for kind, group in sorted(by_kind.items()):
        seen = observers[kind].observe(group)
        for artifact in group:
            if artifact.identity not in seen:
                raise StreamtError(
                    Codes.E407_DEPLOY_ERROR,
                    f"The {kind} observer returned no observation for '{artifact.identity}'.",
                    "This is a provider plugin defect; nothing was changed.",
                )
            observations[(kind, artifact.identity)] = seen[artifact.identity]
    return observations
