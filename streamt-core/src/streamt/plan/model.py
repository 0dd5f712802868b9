"""Plan values: what a planner sees (Observation) and says (Action, SafetyBlocker).

All of them are immutable and serialise to canonical JSON, because a reviewed
plan file binds their exact bytes with its integrity checksum.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from streamt.artifacts import Artifact

CREATE, UPDATE, DELETE, NOOP, ADOPT = "create", "update", "delete", "noop", "adopt"
ACTIONS = (CREATE, UPDATE, DELETE, NOOP, ADOPT)

# Observation statuses. Offline planning never reads live state: it assumes
# managed resources are absent and says so in the evidence.
ABSENT, PRESENT, UNAVAILABLE = "absent", "present", "unavailable"


@attrs.frozen
class Observation:
    """What a provider saw live for one artifact (or assumed, offline).

    * ``status`` — ``absent``, ``present`` or ``unavailable`` (``ABSENT`` ...).
    * ``spec`` — the live resource normalized to the artifact's spec shape
      (only the keys the artifact declares), ``None`` when absent; never a secret.
    * ``assumed`` — ``True`` when nothing was read (offline planning).
    """

    status: str
    spec: dict[str, Any] | None = None
    assumed: bool = False

    def to_json(self) -> dict[str, Any]:
        """The observation as JSON data (plan evidence)."""
        return {"assumed": self.assumed, "spec": self.spec, "status": self.status}


ASSUMED_ABSENT = Observation(ABSENT, assumed=True)


@attrs.frozen
class Action:
    """One step of a plan for one artifact (build it with ``Action.for_artifact``).

    * ``action`` — ``create``, ``update``, ``delete``, ``noop`` or ``adopt``.
    * ``kind``, ``name``, ``identity``, ``ownership``, ``provider``,
      ``checksum`` — copied from the artifact the action is for.
    * ``summary`` — the human detail shown after the name (``12 partitions,
      rf=3`` or ``partitions: 6 → 12``).
    * ``evidence`` — the canonical facts the decision rests on (observation,
      changed keys), bound by plan files.
    """

    action: str = attrs.field(validator=attrs.validators.in_(ACTIONS))
    kind: str
    name: str
    identity: str
    ownership: str
    provider: str
    checksum: str
    summary: str = ""
    evidence: dict[str, Any] = attrs.field(factory=dict)

    @classmethod
    def for_artifact(
        cls, action: str, artifact: Artifact, summary: str, observation: Observation, **evidence: Any
    ) -> Action:
        """The usual construction: identity from the artifact, the observation as evidence."""
        return cls(
            action=action,
            kind=artifact.kind,
            name=artifact.name,
            identity=artifact.identity,
            ownership=artifact.ownership,
            provider=artifact.provider,
            checksum=artifact.checksum,
            summary=summary,
            evidence={"observation": observation.to_json(), **evidence},
        )

    def to_json(self) -> dict[str, Any]:
        """The action as JSON data (plan files and ``-o json``)."""
        return {
            "action": self.action,
            "checksum": self.checksum,
            "evidence": self.evidence,
            "identity": self.identity,
            "kind": self.kind,
            "name": self.name,
            "ownership": self.ownership,
            "provider": self.provider,
            "summary": self.summary,
        }


@attrs.frozen
class SafetyBlocker:
    """A change that may be reviewed but not applied.

    * ``reason`` — a stable machine name (``kafka_partition_reduction``, ``flink_job_update`` ...).
    * ``kind``, ``identity`` — the artifact it blocks.
    * ``message`` — one human line saying what would change and why it is refused.
    * ``suggestion`` — what to do instead (the ``E417`` hint); not part of plan output or plan files.
    """

    reason: str
    kind: str
    identity: str
    message: str
    suggestion: str | None = attrs.field(default=None, eq=False)

    def to_json(self) -> dict[str, Any]:
        """The blocker as JSON data."""
        return {"identity": self.identity, "kind": self.kind, "message": self.message, "reason": self.reason}


def blocked_update(
    artifact: Artifact,
    observation: Observation,
    reason: str,
    message: str,
    suggestion: str | None = None,
    *,
    summary: str | None = None,
    **evidence: Any,
) -> list[Action | SafetyBlocker]:
    """A change plan shows but refuses: the ``update`` it would be (``summary``, else ``reason``) and its blocker.

    The action keeps the change reviewable in plan output; the blocker makes apply refuse it (``E417``).
    """
    return [
        Action.for_artifact(UPDATE, artifact, reason if summary is None else summary, observation, **evidence),
        SafetyBlocker(reason, artifact.kind, artifact.identity, message, suggestion),
    ]


@attrs.frozen
class AppliedRecord:
    """The parts of an ownership record a planner reads, as a successful apply would leave them.

    An advising planner (``advise``) plans ``after`` against this record of ``before`` to learn what
    ``plan`` will do once ``before`` runs, without any state.

    * ``artifact_checksum`` — the checksum of the artifact applied (``before``'s).
    * ``attributes`` — the provider facts that apply records (a job's running name, a generation).
    """

    artifact_checksum: str
    attributes: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Advice:
    """What ``plan`` will do with one artifact when its running version ``before`` becomes ``after``.

    A planner's ``advise`` answers from its own planning rules, offline, so ``streamt impact`` says
    what ``plan``/``apply`` will accept before anything runs.

    * ``kind``, ``identity`` — the artifact advised on.
    * ``workflow`` — a stable id (``flink_savepoint_upgrade`` ...); ``None`` when nothing is redeployed.
    * ``description`` — one line saying what the workflow does.
    * ``summary`` — what plan does as the project is configured (or why it refuses).
    * ``blocked`` — plan refuses the change as configured (``E417``); ``reason`` — its blocker.
    * ``setting`` — the setting to change first, as ``key: value``, when one unblocks it.
    * ``upgrade_mode`` — the mode the change runs under (with ``setting`` applied).
    * ``state_compatible`` — whether the running state restores into ``after`` (``None``: not stateful
      or unknown).
    * ``commands`` — the exact commands, in order, once ``setting`` is applied.
    """

    kind: str
    identity: str
    workflow: str | None
    description: str
    summary: str
    blocked: bool = False
    reason: str | None = None
    setting: str | None = None
    upgrade_mode: str | None = None
    state_compatible: bool | None = None
    commands: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The advice as JSON data (``streamt impact``)."""
        return {
            "blocked": self.blocked,
            "commands": list(self.commands),
            "description": self.description,
            "identity": self.identity,
            "kind": self.kind,
            "reason": self.reason,
            "setting": self.setting,
            "state_compatible": self.state_compatible,
            "summary": self.summary,
            "upgrade_mode": self.upgrade_mode,
            "workflow": self.workflow,
        }


@attrs.frozen
class OwnershipRequirement:
    """A managed resource that exists live without a recorded claim: it needs an explicit decision.

    ``suggestion`` is the decision's exact next step when there is one (the ``E410`` hint); ``owner``
    the streamt project and environment that made the resource, when its provider keeps an owner
    marker (the ``E410`` message names them). Neither is part of plan output or plan files.
    """

    kind: str
    identity: str
    resource_id: str
    message: str
    suggestion: str | None = attrs.field(default=None, eq=False)
    owner: str | None = attrs.field(default=None, eq=False)

    def to_json(self) -> dict[str, Any]:
        return {"identity": self.identity, "kind": self.kind, "message": self.message, "resource_id": self.resource_id}


@attrs.frozen
class StateReference:
    """The exact ownership state an online plan was made against.

    ``checksum`` and ``store_id`` are ``None`` while the state is absent
    (serial 0); a reviewed plan then authorizes apply only if it is still absent.
    """

    backend: str
    address: str
    serial: int
    checksum: str | None
    store_id: str | None = None

    @classmethod
    def from_status(cls, status: dict[str, Any]) -> StateReference:
        """From a backend's ``status()`` dict (any backend following the protocol)."""
        return cls(status["backend"], status["address"], status["serial"], status["checksum"], status["store_id"])

    def to_json(self) -> dict[str, Any]:
        return {
            "address": self.address,
            "backend": self.backend,
            "checksum": self.checksum,
            "serial": self.serial,
            "store_id": self.store_id,
        }


@attrs.frozen
class Plan:
    """Ordered actions and blockers for one project in one environment.

    ``state`` is ``None`` for an offline plan: nothing live was read, so the
    plan can be reviewed but never authorizes apply.
    """

    project: str
    environment: str
    offline: bool
    manifest_checksum: str
    environment_fingerprint: str
    actions: tuple[Action, ...]
    safety_blockers: tuple[SafetyBlocker, ...] = ()
    state: StateReference | None = None
    ownership_requirements: tuple[OwnershipRequirement, ...] = ()
    # Kinds whose live state was read (online only): the plan file's live evidence.
    observed_kinds: tuple[str, ...] = ()

    @property
    def counts(self) -> dict[str, int]:
        tally = Counter(a.action for a in self.actions)
        return {action: tally.get(action, 0) for action in ACTIONS}

    @property
    def is_apply_blocked(self) -> bool:
        return bool(self.safety_blockers or self.ownership_requirements)

    @property
    def mutations(self) -> tuple[Action, ...]:
        return tuple(a for a in self.actions if a.action != NOOP)

    @property
    def has_changes(self) -> bool:
        """Something to apply or to decide: a mutation, a safety blocker or an ownership requirement."""
        return bool(self.mutations) or self.is_apply_blocked

    @property
    def can_authorize_apply(self) -> bool:
        return not self.offline and self.state is not None
