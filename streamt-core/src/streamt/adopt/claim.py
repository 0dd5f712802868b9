"""The claim itself, under the state lock: conflicts, live review, confirmation, one commit."""

from __future__ import annotations

from typing import Any

from streamt.artifacts import Artifact
from streamt.boundary import boundary
from streamt.errors import Codes, StreamtError
from streamt.plan.model import ABSENT, PRESENT, Observation, SafetyBlocker
from streamt.sdk.protocols import (
    AdoptionAttributesObserver,
    AdoptionObserver,
    AdoptionPendingObserver,
    ExactAdoptionObserver,
)
from streamt.state.operations import ADOPT_OPERATION
from streamt.state.records import OwnershipRecord


def record_for(artifact: Artifact, resource_id: str, attributes: dict[str, Any] | None = None) -> OwnershipRecord:
    return OwnershipRecord(
        resource_id=resource_id,
        kind=artifact.kind,
        name=artifact.name,
        identity=artifact.identity,
        ownership="adopted",
        artifact_checksum=artifact.checksum,
        provider=artifact.provider,
        attributes=dict(attributes or {}),
    )


def existing_claim(state: Any, artifact: Artifact, resource_id: str) -> OwnershipRecord | None:
    """The identical claim already held, ``None`` if there is none; ``E415`` for any other claim."""
    records = state.records if state is not None else ()
    for record in records:
        same_resource = record.resource_id == resource_id
        same_target = record.kind == artifact.kind and record.identity == artifact.identity
        if not (same_resource or same_target):
            continue
        if same_resource and same_target and record.ownership == "adopted":
            return record
        raise StreamtError(
            Codes.E415_ADOPTION_STATE_CONFLICT,
            f"Ownership state already holds a {record.ownership} claim on {record.kind} '{record.identity}' "
            f"as {record.resource_id}.",
            "Inspect `streamt state status`; a resource is claimed by exactly one declaration.",
        )
    return None


def read_live(observer: AdoptionObserver, artifact: Artifact) -> Observation:
    """The observation adoption reviews: the observer's exact single-resource read when it has one
    (a connector: one ``GET /connectors/<name>``), else its ordinary ``observe``."""
    if isinstance(observer, ExactAdoptionObserver):
        return observer.adoption_observe(artifact)
    return observer.observe([artifact])[artifact.identity]


def observe(
    observer: AdoptionObserver, planner: Any, artifact: Artifact
) -> tuple[Any, dict[str, Any], list[dict[str, Any]]]:
    """The observation, live review facts and pending differences; ``E413`` when absent, ``E416`` when unreadable."""
    try:
        observation = read_live(observer, artifact)
        if observation.status == ABSENT:
            raise StreamtError(
                Codes.E413_ADOPTION_LIVE_NOT_FOUND,
                f"{artifact.kind} '{artifact.identity}' does not exist live; there is nothing to adopt.",
                "Check the declared topic/subject name and the environment, or declare it managed to create it.",
            )
        if observation.status != PRESENT:
            raise StreamtError(Codes.E416_ADOPTION_FAILED, f"{artifact.kind} '{artifact.identity}' is unreadable.")
        live = observer.adoption_review(artifact)
        items = planner.plan(artifact, observation, None) if planner is not None else []
    except StreamtError as exc:
        if exc.diagnostics[0].code in (
            Codes.E412_ADOPTION_TARGET_INVALID,
            Codes.E413_ADOPTION_LIVE_NOT_FOUND,
            Codes.E416_ADOPTION_FAILED,
        ):
            raise
        cause = exc.diagnostics[0]
        raise StreamtError(
            Codes.E416_ADOPTION_FAILED,
            f"Live observation failed: {cause.message}",
            cause.suggestion,
            details={"cause": cause.code.code},
        ) from None
    if isinstance(observer, AdoptionPendingObserver):
        return observation, live, observer.adoption_pending(list(items))
    pending = []
    for item in items:
        if isinstance(item, SafetyBlocker):
            pending.append({"blocker": item.reason, "message": item.message})
        elif item.action != "noop":
            pending.append({"action": item.action, "summary": item.summary, "changes": item.evidence.get("changes")})
    return observation, live, pending


def reconfirm(observer: AdoptionObserver, artifact: Artifact, before: Observation) -> None:
    """After confirmation, the exact read again: the claim is refused (``E416``) unless nothing changed."""
    if not isinstance(observer, ExactAdoptionObserver):
        return
    try:
        after = read_live(observer, artifact)
    except StreamtError as exc:
        cause = exc.diagnostics[0]
        raise StreamtError(
            Codes.E416_ADOPTION_FAILED,
            f"Live observation after confirmation failed: {cause.message}",
            cause.suggestion,
            details={"cause": cause.code.code},
        ) from None
    if (after.status, after.spec) != (before.status, before.spec):
        raise StreamtError(
            Codes.E416_ADOPTION_FAILED,
            f"{artifact.kind} '{artifact.identity}' changed between the review and the confirmation; "
            "nothing was adopted.",
            "Run `streamt adopt` again and review what is live now.",
        )


def record_attributes(observer: AdoptionObserver, artifact: Artifact) -> dict[str, Any]:
    """Secret-neutral facts the observer learnt in its exact read (a connector's config fingerprint)."""
    return dict(observer.adoption_attributes(artifact)) if isinstance(observer, AdoptionAttributesObserver) else {}


def commit(backend: Any, artifact: Artifact, resource_id: str, attributes: dict[str, Any] | None = None) -> Any:
    """Durable intent, then one serial increment; any failure after the intent names its operation."""
    state = backend.read_state()
    records = [*(state.records if state is not None else ()), record_for(artifact, resource_id, attributes)]
    intent = {
        "position": 0,
        "action": "adopt",
        "kind": artifact.kind,
        "name": artifact.name,
        "identity": artifact.identity,
        "checksum": artifact.checksum,
        "resource_id": resource_id,
    }
    control = backend.begin_operation(ADOPT_OPERATION, [intent])
    boundary()
    try:
        return control.operation_id, backend.commit(control, records)
    except StreamtError as exc:
        exc.data.setdefault("operation_id", control.operation_id)
        exc.diagnostics[0].details.setdefault("operation_id", control.operation_id)
        raise
    except OSError:
        raise StreamtError(
            Codes.E416_ADOPTION_FAILED,
            f"The adoption state could not be persisted (operation id: {control.operation_id}).",
            "Inspect `streamt state status`; use `streamt state recovery-plan` if a marker remains.",
            details={"operation_id": control.operation_id},
            data={"operation_id": control.operation_id, "committed": None},
        ) from None
