"""The plan engine: compiled artifacts -> ordered actions, through planner hooks.

Ownership decides before any planner is asked: an external artifact is a
declaration-only no-op, never observed. Offline planning then hands every
other artifact to the planner for its kind with an *assumed absent*
observation; online planning passes the live observation and the ownership
record through the same call (``plan_project``).

Online ownership rules (dsl.md section 16):

* managed, live absent → the planner decides (a create);
* managed, live present with a record → the planner compares declared keys;
* managed or adopted, live present without a record → ``OwnershipRequirement``
  (apply refuses it with ``E410_OWNERSHIP_REQUIRED``): streamt never takes
  over a resource it did not create or adopt;
* adopted, live absent → ``OwnershipRequirement`` too: adoption needs the resource.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from streamt import kinds
from streamt.artifacts import Artifact, canonical_json, sha256_checksum
from streamt.compile import CompiledProject, checksummed_manifest
from streamt.errors import Codes, StreamtError
from streamt.kinds import KindTable
from streamt.plan.model import (
    ABSENT,
    ASSUMED_ABSENT,
    NOOP,
    PRESENT,
    Action,
    Observation,
    OwnershipRequirement,
    Plan,
    SafetyBlocker,
    StateReference,
)
from streamt.plan.tombstones import authorize, is_removal, prior_resource_id, refuse_offline_artifacts
from streamt.plugins import Plugins, get_plugins
from streamt.project import sections as plugin_sections
from streamt.redact import without_secrets
from streamt.sdk.protocols import Planner

NOT_REQUESTED = Observation("not_requested")


class DefaultPlanner:
    """Core's planner for kinds no plugin plans: absent -> create (a removal always needs its plugin)."""

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        if observation.status != "absent":
            raise StreamtError(
                Codes.E903_PLUGIN_REQUIRED,
                f"No installed plugin plans '{artifact.kind}' artifacts against live state.",
                "Install the provider plugin of this kind; `streamt plugins` lists what is installed.",
            )
        return [Action.for_artifact("create", artifact, "", observation)]


def planners_by_kind(plugins: Plugins) -> KindTable[Planner]:
    """The planner of each kind, under the one precedence rule of ``streamt.kinds`` (a shared kind is E906)."""
    return kinds.planners(plugins)


def plan_offline(project: Any, compiled: CompiledProject, plugins: Plugins | None = None) -> Plan:
    """Plan a fresh deployment without contacting anything; the result cannot authorize apply."""
    return plan_project(project, compiled, plugins=plugins)


def plan_project(
    project: Any,
    compiled: CompiledProject,
    *,
    observations: Mapping[tuple[str, str], Observation] | None = None,
    state: Any = None,
    state_reference: StateReference | None = None,
    artifacts: tuple[Artifact, ...] | None = None,
    plugins: Plugins | None = None,
) -> Plan:
    """One engine for both modes.

    ``observations`` is ``None`` offline; online it maps ``(kind, identity)``
    of every managed and adopted artifact to its live observation, and
    ``state`` is the ``OwnershipState`` read (``None`` when absent) with its
    exact ``state_reference``. ``artifacts`` narrows the plan to a selection
    (``apply --target/--select``); the manifest checksum still covers the
    whole project.
    """
    plugins = plugins or get_plugins()
    offline = observations is None
    if offline:
        refuse_offline_artifacts(compiled.artifacts if artifacts is None else artifacts)
    table = planners_by_kind(plugins)
    table.require(a.kind for a in (compiled.artifacts if artifacts is None else artifacts) if a.ownership != "external")
    default = DefaultPlanner()
    # Bound first: it encodes every spec once and remembers the checksums the actions below read. A
    # failure is raised where it always was, after the actions (whose own errors come first).
    try:
        bindings: dict[str, str] | None = project_bindings(project, compiled)
    except Exception as exc:
        bindings, unbound = None, exc
    records = state.by_resource if state is not None else {}
    actions: list[Action] = []
    blockers: list[SafetyBlocker] = []
    requirements: list[OwnershipRequirement] = []
    for artifact in compiled.artifacts if artifacts is None else artifacts:
        if artifact.ownership == "external":
            actions.append(Action.for_artifact(NOOP, artifact, "external: declaration only", NOT_REQUESTED))
            continue
        if offline:
            if artifact.ownership == "adopted":
                # An adopted resource exists by definition; only live evidence can say what would change.
                actions.append(Action.for_artifact(NOOP, artifact, "adopted: compared live online", NOT_REQUESTED))
                continue
            observation, record = ASSUMED_ABSENT, None
        else:
            assert observations is not None
            observation = observations[(artifact.kind, artifact.identity)]
            if is_removal(artifact.kind):
                prior = prior_resource_id(artifact.kind, artifact.name, compiled.project_name, compiled.environment)
                if prior not in records and observation.status == PRESENT:
                    # A tombstone deletes only what streamt owns: a live target without a record is E410.
                    message = f"{artifact.kind} '{artifact.identity}' targets a live resource with no ownership record."
                    requirements.append(OwnershipRequirement(artifact.kind, artifact.identity, prior, message))
                    actions.append(Action.for_artifact(NOOP, artifact, "ownership decision required", observation))
                    continue
                for item in _plan_removal(project, artifact, observation, records.get(prior), table.get(artifact.kind)):
                    (blockers if isinstance(item, SafetyBlocker) else actions).append(item)
                continue
            record = records.get(artifact.resource_id(compiled.project_name, compiled.environment))
            requirement = _ownership_requirement(artifact, observation, record, compiled, project)
            if requirement is not None:
                requirements.append(requirement)
                actions.append(Action.for_artifact(NOOP, artifact, "ownership decision required", observation))
                continue
        for item in table.get(artifact.kind, default).plan(artifact, observation, record):
            if isinstance(item, SafetyBlocker):
                blockers.append(item)
            else:
                actions.append(item)
    if bindings is None:
        raise unbound
    return Plan(
        **bindings,
        offline=offline,
        actions=tuple(actions),
        safety_blockers=tuple(blockers),
        state=state_reference,
        ownership_requirements=tuple(requirements),
        observed_kinds=tuple(sorted({kind for kind, _ in observations})) if observations else (),
    )


def project_bindings(project: Any, compiled: CompiledProject) -> dict[str, str]:
    """What a plan binds about the project: reviewed plans are refused when any of it changed."""
    return {  # the manifest alone: a plan never renders an artifact file
        "project": compiled.project_name,
        "environment": compiled.environment,
        "environment_fingerprint": environment_fingerprint(project),
        "manifest_checksum": checksummed_manifest(compiled)[1],
    }


def _plan_removal(project: Any, artifact: Artifact, observation: Observation, record: Any, planner: Any) -> list[Any]:
    """A tombstone, planned against the prior artifact's ownership record by its kind's planner
    (exact delete, assessed no-op, drift or ownership blocker); ``safety.allow_destructive``
    stands in for ``--force``."""
    if planner is None:
        raise StreamtError(
            Codes.E904_NOT_IMPLEMENTED,
            f"No installed plugin plans {artifact.kind} tombstones against live state.",
            "Remove the lifecycle tombstone, or install the provider plugin that implements the removal.",
        )
    allow = project.environment.safety.allow_destructive
    items = []
    for item in planner.plan(artifact, observation, record):
        if isinstance(item, Action) and item.evidence.get("requires"):
            evidence = {**item.evidence, "requires": authorize(item.evidence["requires"], allow)}
            item = attrs.evolve(item, evidence=evidence)
        items.append(item)
    return items


def _ownership_requirement(
    artifact: Artifact, observation: Observation, record: Any, compiled: CompiledProject, project: Any
) -> OwnershipRequirement | None:
    resource = artifact.resource_id(compiled.project_name, compiled.environment)
    if record is not None:
        return None
    if artifact.ownership == "adopted":
        # Already declared adopted: the one step left is the claim itself (or the resource is missing).
        if observation.status == ABSENT:
            message = f"{artifact.kind} '{artifact.identity}' is declared adopted and does not exist."
            suggestion = "create it outside streamt first, or declare it managed so that apply creates it"
        else:
            message = f"{artifact.kind} '{artifact.identity}' is declared adopted and exists but is not adopted yet."
            suggestion = (
                f"run `streamt adopt{project.environment.cli_option} --kind {artifact.kind} --name {artifact.name} "
                f"--confirm-resource {resource}`, then apply again"
            )
        return OwnershipRequirement(artifact.kind, artifact.identity, resource, message, suggestion)
    elif observation.status != ABSENT and not (observation.spec or {}).get("history_only"):
        # history_only: the provider still lists it, but nothing of it is live to take over (a
        # cancelled Flink job under this project's job name): no ownership question.
        message = f"{artifact.kind} '{artifact.identity}' exists live but streamt has no ownership record for it."
        owner = (observation.spec or {}).get("owner")
        if isinstance(owner, Mapping):
            # The provider's owner marker (a connector's streamt.owner): who made it, never a secret.
            made_by = f"created by streamt project '{owner['project']}', environment '{owner['environment']}'"
            message += f" It was {made_by}."
            suggestion = None
            if (owner["project"], owner["environment"]) != (compiled.project_name, compiled.environment):
                suggestion = "rename the declaration, or remove the resource from that project first"
            return OwnershipRequirement(artifact.kind, artifact.identity, resource, message, suggestion, made_by)
    else:
        return None
    return OwnershipRequirement(artifact.kind, artifact.identity, resource, message)


_SECRET_WORDS = ("password", "secret", "api_key", "token", "dsn")
# Fields of `Runtime` that hold plugin sections or facts derived from them, not settings.
_NOT_SETTINGS = ("sections", "enabled", "variables")


def _plain(value: Any) -> Any:
    """A section nobody claims (read-only maps and tuples) as JSON-like data."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def environment_fingerprint(project: Any) -> str:
    """A digest of the target environment's non-secret settings.

    A plan reviewed for one broker must not be applied to another. Secrets
    are left out entirely (not even hashed: a hash of a weak password can be
    guessed offline), including credentials written inside URLs.
    """

    def keep(attribute: attrs.Attribute, _value: Any) -> bool:  # type: ignore[type-arg]
        return attribute.repr is not False and not any(w in attribute.name for w in _SECRET_WORDS)

    runtime = project.runtime
    settings = attrs.asdict(runtime, filter=lambda a, v: a.name not in _NOT_SETTINGS and keep(a, v))
    # Every section a plugin claims is a setting of its own, `None` when not written: the same
    # digest as when those sections were fields of `Runtime`.
    for name in plugin_sections.registry().names("runtime"):
        value = runtime.section(name)
        settings[name] = attrs.asdict(value, filter=keep) if attrs.has(type(value)) else _plain(value)
    body = {
        "environment": project.env,
        "project": project.name,
        "runtime": without_secrets(settings),
    }
    return sha256_checksum(canonical_json(body))
