"""The shared skeleton of a reviewed removal: one planner and one deployer each removal kind parametrises.

A removal kind (``streamt.sdk.RemovalKind``) compiles each tombstone into an artifact of kind
``<prior kind>_removal`` whose identity is the removed resource's name. Planning it is the same
decision for every provider, against the ownership record of the prior artifact:

* no record and nothing live → a no-op whose reason is ``TOMBSTONE_FULFILLED`` (inert: its delete is
  done or was never needed); no record but something live → the ``<kind>_ownership_required``
  blocker;
* a record the provider cannot prove a delete against, a recorded resource absent live, or a live
  resource that differs from what the record proves → the ``<kind>_drift`` blocker;
* otherwise one ``delete`` that needs a reviewed plan and ``--force`` (unless
  ``safety.allow_destructive``), carrying the provider's ``removal`` binding as evidence.

Applying it is one delete per call (``max_batch = 1``), never retried and never rolled back; the
provider says how it deletes and core's executor stops with ``failure_code`` when set. Recovery
classifies an absent resource as the candidate state (the delete happened) and the exact prior
resource as the prior state. A subclass supplies only the provider's questions (the ``*_problem``
methods, ``binding``, ``is_prior`` and ``delete``); everything decided here is the same for every kind.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from streamt.apply.outcome import FAILED, OK, UNKNOWN, Outcome
from streamt.artifacts import Artifact
from streamt.errors import ErrorCode
from streamt.plan.model import ABSENT, DELETE, NOOP, PRESENT, Action, Observation, SafetyBlocker
from streamt.plan.tombstones import TOMBSTONE_FULFILLED
from streamt.recovery.targets import CANDIDATE, PRIOR

# What a tombstone's delete needs: a reviewed plan and --force (safety.allow_destructive supplies it).
REQUIRES = ("reviewed_plan", "force")


class RemovalPlanner:
    """Plans one tombstone of ``kinds`` against the prior artifact's ownership record.

    Set ``kinds`` (the one removal kind) and ``noun`` (``Connector``: how blockers name the
    resource); implement ``record_problem``, ``live_problem``, ``binding`` and ``is_prior``.
    """

    kinds: tuple[str, ...] = ()
    noun = "Resource"

    def record_problem(self, artifact: Artifact, record: Any) -> str | None:
        """Why the ownership record cannot prove a delete of ``artifact`` (``None``: it can)."""
        raise NotImplementedError

    def live_problem(self, artifact: Artifact, observation: Observation, record: Any) -> str | None:
        """Why the present live resource is not the one the record proves (``None``: it is)."""
        raise NotImplementedError

    def binding(self, artifact: Artifact, observation: Observation, record: Any) -> dict[str, Any]:
        """The ``removal`` evidence the delete is bound to (endpoint, checksums, fingerprints)."""
        raise NotImplementedError

    def summary(self, artifact: Artifact, observation: Observation, binding: dict[str, Any]) -> str:
        """The delete action's one-line reason."""
        return f"delete {self.noun.lower()} {artifact.identity}"

    def is_prior(self, artifact: Artifact, observation: Observation, evidence: list[dict[str, Any]]) -> bool:
        """Whether a present ``observation`` is exactly the resource before the delete (recovery)."""
        raise NotImplementedError

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        """The tombstone's one action or blocker, from its observation and the prior artifact's record."""
        if observation.status not in (ABSENT, PRESENT):
            raise ValueError(f"cannot plan the removal of {artifact.identity} from a {observation.status} observation")
        drift, unowned = f"{artifact.kind}_drift", f"{artifact.kind}_ownership_required"
        if record is None:
            if observation.status == ABSENT:
                return [Action.for_artifact(NOOP, artifact, TOMBSTONE_FULFILLED, observation)]
            return [self.blocked(artifact, unowned, "exists live but streamt has no ownership record for it")]
        why = self.record_problem(artifact, record)
        if why is None and observation.status == ABSENT:
            why = "is recorded as owned but absent live"
        if why is None:
            why = self.live_problem(artifact, observation, record)
        if why is not None:
            return [self.blocked(artifact, drift, why)]
        binding = self.binding(artifact, observation, record)
        summary = self.summary(artifact, observation, binding)
        return [Action.for_artifact(DELETE, artifact, summary, observation, requires=list(REQUIRES), removal=binding)]

    def blocked(self, artifact: Artifact, reason: str, why: str) -> SafetyBlocker:
        """The blocker ``reason`` for ``artifact``: ``<noun> '<identity>' <why>; nothing is deleted.``"""
        return SafetyBlocker(
            reason, artifact.kind, artifact.identity, f"{self.noun} '{artifact.identity}' {why}; nothing is deleted."
        )

    def classify_recovery(
        self,
        resolution: str,
        intent: dict[str, Any],
        outcomes: list[str],
        evidence: list[dict[str, Any]],
        observation: Observation,
        artifact: Artifact,
    ) -> str | None:
        """Absent is the delete done (candidate); exactly the prior resource still live is the prior state."""
        if observation.status == ABSENT:
            return None if resolution == "rolled_back" else CANDIDATE
        return PRIOR if observation.status == PRESENT and self.is_prior(artifact, observation, evidence) else None


class RemovalDeployer:
    """Carries out one reviewed tombstone delete per call; subclasses implement ``delete``.

    ``absence_checks`` and ``absence_delay_seconds`` bound ``confirm_absent``; ``failure_code``
    (an ``ErrorCode`` or ``None`` for ``E407``) is the code apply stops with when a delete fails.
    """

    kinds: tuple[str, ...] = ()
    max_batch = 1
    absence_checks = 5
    absence_delay_seconds = 0.5
    failure_code: ErrorCode | None = None

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]], journal: Any = None) -> dict[str, Outcome]:
        """One ``Outcome`` per identity; any verb but ``delete`` fails before anything is sent."""
        return {planned.identity: self._one(action, planned, artifact, journal) for planned, artifact in pairs}

    def _one(self, verb: str, action: Action, artifact: Artifact, journal: Any) -> Outcome:
        if verb != DELETE:
            return Outcome(FAILED, f"Unsupported{verb.title()}")
        return self.delete(action, artifact, journal)

    def delete(self, action: Action, artifact: Artifact, journal: Any) -> Outcome:
        """Re-read, check the reviewed preimage, delete, then ``confirm_absent``: the provider's own steps.

        ``failed`` only when nothing was sent; once a DELETE may have been sent, anything but
        proof of absence is ``unknown``. ``journal`` is set only when ``writes_evidence`` is.
        """
        raise NotImplementedError

    def confirm_absent(self, is_absent: Callable[[], bool], errors: tuple[type[BaseException], ...]) -> Outcome:
        """``ok`` once ``is_absent()`` says so within ``absence_checks`` reads, else ``unknown``.

        A read that raises one of ``errors`` counts as not yet absent.
        """
        for attempt in range(self.absence_checks):
            try:
                if is_absent():
                    return OK
            except errors:
                pass
            if attempt + 1 < self.absence_checks:
                time.sleep(self.absence_delay_seconds)
        return Outcome(UNKNOWN, "AbsenceNotProved")

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Always ``False``: a delete is never undone automatically."""
        return False
