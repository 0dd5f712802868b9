"""Each action of the durable intent, freshly observed and classified exactly.

``prior`` means the live resource is as it was before the operation (a create
that is absent, an adopt not recorded, an update never started); ``candidate``
means it matches the operation's desired artifact exactly. Anything else
cannot be represented and fails closed.
"""

from __future__ import annotations

from typing import Any

from streamt.errors import Codes, StreamtError
from streamt.plan.model import ABSENT, NOOP, PRESENT
from streamt.sdk.protocols import RecoveryAttributesPlanner, RecoveryClassifyingPlanner

PRIOR, CANDIDATE = "prior", "candidate"


def artifacts_for(actions: tuple[dict[str, Any], ...], compiled: Any) -> list[Any]:
    """The current compiled artifact of every intent action; it must be byte-identical to the intent's."""
    by_key = {(a.kind, a.identity): a for a in compiled.artifacts}
    found = []
    for intent in actions:
        artifact = by_key.get((intent["kind"], intent["identity"]))
        if artifact is None or artifact.checksum != intent["checksum"]:
            raise StreamtError(
                Codes.E409_PLAN_STALE,
                f"The project no longer compiles {intent['kind']} '{intent['identity']}' exactly as the blocked "
                "operation intended; its target cannot be represented exactly.",
                "Restore the project revision of the blocked operation, then create the recovery plan.",
            )
        found.append(artifact)
    return found


def classify(
    resolution: str,
    intent: dict[str, Any],
    outcomes: list[str],
    observation: Any,
    planner: Any,
    artifact: Any,
    evidence: tuple[dict[str, Any], ...] = (),
) -> str | None:
    """``prior``, ``candidate`` or ``None``; a planner with ``classify_recovery`` decides for its kind.

    ``evidence`` is what the deployer journaled for this action, in order (a Flink savepoint path).
    """
    if isinstance(planner, RecoveryClassifyingPlanner):
        found = planner.classify_recovery(resolution, intent, outcomes, list(evidence), observation, artifact)
        return str(found) if found is not None else None
    action = intent["action"]
    if observation.status not in (ABSENT, PRESENT):
        return None
    if action == "adopt":  # a state-only claim: rolled back, it was never recorded
        if resolution == "rolled_back":
            return PRIOR
        return CANDIDATE if observation.status == PRESENT else None
    if observation.status == PRESENT and planner is not None:
        items = planner.plan(artifact, observation, None)
        if items and all(getattr(i, "action", None) == NOOP for i in items):
            return CANDIDATE
    if action == "create" and observation.status == ABSENT:
        return PRIOR
    if action == "update" and not outcomes and observation.status == PRESENT:
        return PRIOR  # never started: still as it was
    return None


def record_attributes(
    planner: Any, classification: str | None, evidence: tuple[dict[str, Any], ...], observation: Any, artifact: Any
) -> dict[str, Any] | None:
    """The ownership-record attributes of a ``candidate``, when its planner has any to give."""
    if not isinstance(planner, RecoveryAttributesPlanner) or classification != CANDIDATE:
        return None
    found = planner.recovery_record_attributes(classification, list(evidence), observation, artifact)
    return dict(found) if found is not None else None


def check_resolution(resolution: str, targets: list[dict[str, Any]]) -> None:
    for target in targets:
        cls = target["classification"]
        if cls is None or (resolution == "rolled_back" and cls != PRIOR):
            raise StreamtError(
                Codes.E408_PLAN_FILE_INVALID,
                f"{target['kind']} '{target['identity']}' cannot be represented exactly as {resolution} "
                f"(live: {target['observation']['status']}, classified {cls or 'unrepresentable'}).",
                "Establish the live outcome, choose the resolution that matches it, or leave the marker in place.",
            )
