"""The plan engine: compiled artifacts -> ordered actions, through planner hooks.

Ownership decides before any planner is asked: an external artifact is a
declaration-only no-op, never observed. Offline planning then hands every
other artifact to the planner for its kind with an *assumed absent*
observation; the online release passes real observations and ownership
records through the same call.
"""

from __future__ import annotations

from typing import Any

import attrs

from streamt.artifacts import Artifact, canonical_json, sha256_checksum
from streamt.compile import CompiledProject, manifest_checksum, render
from streamt.errors import Codes, StreamtError
from streamt.plan.model import ASSUMED_ABSENT, DELETE, NOOP, Action, Observation, Plan, SafetyBlocker

NOT_REQUESTED = Observation("not_requested")
# Kinds that request the removal of something the project no longer declares.
REMOVAL_SUFFIX = "_removal"


class DefaultPlanner:
    """Core's planner for kinds no plugin plans: absent -> create, removals -> delete."""

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        if artifact.kind.endswith(REMOVAL_SUFFIX):
            return [Action.for_artifact(DELETE, artifact, "tombstone", observation)]
        if observation.status != "absent":
            raise StreamtError(
                Codes.E903_PLUGIN_REQUIRED,
                f"No installed plugin plans '{artifact.kind}' artifacts against live state.",
                "Install the provider plugin of this kind; `streamt plugins` lists what is installed.",
            )
        return [Action.for_artifact("create", artifact, "", observation)]


def planners_by_kind(plugins: Any) -> dict[str, Any]:
    """The first registered planner for each kind wins (plugins rarely share a kind)."""
    table: dict[str, Any] = {}
    for batch in reversed(plugins.manager.hook.streamt_planners()):
        for planner in batch or []:
            for kind in planner.kinds:
                table.setdefault(kind, planner)
    return table


def plan_offline(project: Any, compiled: CompiledProject, plugins: Any = None) -> Plan:
    """Plan a fresh deployment without contacting anything; the result cannot authorize apply."""
    if plugins is None:
        from streamt.plugins import get_plugins

        plugins = get_plugins()
    table = planners_by_kind(plugins)
    default = DefaultPlanner()
    actions: list[Action] = []
    blockers: list[SafetyBlocker] = []
    for artifact in compiled.artifacts:
        if artifact.ownership == "external":
            actions.append(Action.for_artifact(NOOP, artifact, "external: declaration only", NOT_REQUESTED))
            continue
        if artifact.ownership == "adopted":
            # An adopted resource exists by definition; only live evidence can say what would change.
            actions.append(Action.for_artifact(NOOP, artifact, "adopted: compared live online", NOT_REQUESTED))
            continue
        for item in table.get(artifact.kind, default).plan(artifact, ASSUMED_ABSENT, None):
            (blockers if isinstance(item, SafetyBlocker) else actions).append(item)
    _, manifest = render(compiled)
    return Plan(
        project=compiled.project_name,
        environment=compiled.environment,
        offline=True,
        manifest_checksum=manifest_checksum(manifest),
        environment_fingerprint=environment_fingerprint(project),
        actions=tuple(actions),
        safety_blockers=tuple(blockers),
        state=None,
    )


_SECRET_WORDS = ("password", "secret", "api_key", "token", "dsn")


def environment_fingerprint(project: Any) -> str:
    """A digest of the target environment's non-secret settings.

    A plan reviewed for one broker must not be applied to another. Secrets
    are left out entirely (not even hashed: a hash of a weak password can be
    guessed offline).
    """

    def keep(attribute: attrs.Attribute, _value: Any) -> bool:  # type: ignore[type-arg]
        return attribute.repr is not False and not any(w in attribute.name for w in _SECRET_WORDS)

    body = {
        "environment": project.env,
        "project": project.name,
        "runtime": attrs.asdict(project.runtime, filter=keep),
    }
    return sha256_checksum(canonical_json(body))
