"""Creating reviewed evidence and executing it, through the state-backend protocol."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from streamt.boundary import boundary
from streamt.errors import Codes, StreamtError
from streamt.plan.model import Observation
from streamt.plan.tombstones import is_removal, prior_resource_id
from streamt.recovery import evidence as ev
from streamt.recovery.targets import CANDIDATE, artifacts_for, check_resolution, classify, record_attributes
from streamt.state.operations import require_generic_recovery
from streamt.state.records import CLEAR, OwnershipRecord, OwnershipState


def _preimage(backend: Any) -> tuple[Any, Any]:
    control = backend.read_control()
    if control.status == CLEAR:
        raise StreamtError(
            Codes.E419_STATE_RECOVERY_REQUIRED,
            "There is no unfinished operation to recover.",
            "Inspect `streamt state status`; recovery applies only while a marker blocks changes.",
        )
    return backend.read_state(), control


def observe_targets(project: Any, control: Any, resolution: str) -> Any:
    """``_observe_targets``; every failure names the blocked operation (text and JSON)."""
    try:
        return _observe_targets(project, control, resolution)
    except StreamtError as exc:
        exc.data.setdefault("operation_id", control.operation_id)
        exc.diagnostics[0].details.setdefault("operation_id", control.operation_id)
        raise


def _observe_targets(
    project: Any, control: Any, resolution: str
) -> tuple[dict[str, str], list[dict[str, Any]], list[Any]]:
    """Project bindings, classified targets and their artifacts (the project is recompiled, targets observed)."""
    from streamt.compile import validate_and_compile
    from streamt.plan.engine import planners_by_kind, project_bindings
    from streamt.plan.observe import observe
    from streamt.plan.online import check_observable

    compiled = validate_and_compile(project).compiled
    artifacts = artifacts_for(control.actions, compiled)
    plugins = _plugins()
    observers = check_observable(project, tuple(artifacts), plugins)
    try:
        observations = observe(tuple(artifacts), observers)
    except StreamtError as exc:
        cause = exc.diagnostics[0]
        raise StreamtError(
            Codes.E420_STATE_BACKEND_UNAVAILABLE,
            f"A runtime provider needed for recovery is unavailable: {cause.message}",
            cause.suggestion,
            details={"operation_id": control.operation_id, "cause": cause.code.code},
            data={"operation_id": control.operation_id},
        ) from None
    planners = planners_by_kind(plugins)
    outcomes: dict[int, list[str]] = {}
    journaled: dict[int, list[dict[str, Any]]] = {}
    for progress in control.progress:
        outcomes.setdefault(progress.index, []).append(progress.outcome)
        if progress.evidence is not None:
            journaled.setdefault(progress.index, []).append(progress.evidence)
    targets = []
    for index, (intent, artifact) in enumerate(zip(control.actions, artifacts, strict=True)):
        observation = observations.get((artifact.kind, artifact.identity), Observation("unavailable"))
        done, evidence = outcomes.get(index, []), tuple(journaled.get(index, ()))
        planner = planners.get(artifact.kind)
        cls = classify(resolution, intent, done, observation, planner, artifact, evidence)
        attributes = record_attributes(planner, cls, evidence, observation, artifact)
        targets.append(
            {
                "index": index,
                "action": intent["action"],
                "kind": intent["kind"],
                "name": intent["name"],
                "identity": intent["identity"],
                "checksum": intent["checksum"],
                "progress": done,
                "observation": observation.to_json(),
                "classification": cls,
                **({"record_attributes": attributes} if attributes is not None else {}),
            }
        )
    return project_bindings(project, compiled), targets, artifacts


def candidate_state(backend: Any, state: Any, targets: list[dict[str, Any]], artifacts: list[Any], project: Any) -> Any:
    """Prior records plus one per target classified ``candidate``; ``None`` when nothing changes."""
    records = dict(state.by_resource) if state is not None else {}
    for target, artifact in zip(targets, artifacts, strict=True):
        if target["classification"] != CANDIDATE:
            continue
        if is_removal(artifact.kind):
            # The exact delete happened: the prior artifact's ownership ends, the tombstone owns nothing.
            records.pop(prior_resource_id(artifact.kind, artifact.name, project.name, project.env), None)
            continue
        resource = artifact.resource_id(project.name, project.env)
        ownership = "adopted" if target["action"] == "adopt" else artifact.ownership
        records[resource] = OwnershipRecord(
            resource,
            artifact.kind,
            artifact.name,
            artifact.identity,
            ownership,
            artifact.checksum,
            artifact.provider,
            attributes=dict(target.get("record_attributes") or {}),
        )
    if state is not None and tuple(records[k] for k in sorted(records)) == state.records:
        return None
    if state is None and not records:
        return None
    return OwnershipState(
        # A store that owns its identity (PostgreSQL) names it; local state starts a new one.
        store_id=state.store_id if state is not None else (backend.status()["store_id"] or str(uuid.uuid4())),
        address=backend.address,
        serial=(state.serial if state is not None else 0) + 1,
        records=tuple(records[k] for k in sorted(records)),
    )


def create(project: Any, backend: Any, resolution: str, out: Path) -> dict[str, Any]:
    with backend.operation_lock():
        state, control = _preimage(backend)
        require_generic_recovery(control.operation_kind, str(control.operation_id), project.env)
        if resolution == "abandoned_before_mutation":
            if control.progress:
                raise StreamtError(
                    Codes.E419_STATE_RECOVERY_REQUIRED,
                    "abandoned_before_mutation is forbidden: the operation recorded durable progress.",
                    "Establish the live outcome and use observed or rolled_back.",
                    details={"operation_id": control.operation_id},
                    data={"operation_id": control.operation_id},
                )
            bindings, targets, candidate = None, list[dict[str, Any]](), None
        else:
            bindings, targets, artifacts = observe_targets(project, control, resolution)
            check_resolution(resolution, targets)
            candidate = candidate_state(backend, state, targets, artifacts, project)
        status = backend.status()
        document = ev.seal(
            {
                "store": {"backend": status["backend"], "store_id": status["store_id"]},
                "address": backend.address,
                "blocked_operation_id": control.operation_id,
                "recovery_operation_id": str(uuid.uuid4()),
                "resolution": resolution,
                "preimage": {
                    "state_serial": state.serial if state else 0,
                    "state_checksum": state.checksum if state else None,
                    "control_checksum": control.to_document()["checksum"],
                    "control_status": control.status,
                    "operation_kind": control.operation_kind,
                    "actions": list(control.actions),
                    "progress": [p.to_json() for p in control.progress],
                },
                "project": bindings,
                "targets": targets,
                "candidate_state": candidate.to_document() if candidate is not None else None,
            }
        )
        ev.write(out, document)
    return document


def execute(project: Any, backend: Any, document: dict[str, Any]) -> dict[str, Any]:
    """Revalidate everything under the lock, then commit state + history + control through the backend."""
    blocked = document["blocked_operation_id"]
    if not isinstance(document.get("preimage"), dict):
        raise ev.invalid("The recovery plan has no preimage of the blocked operation.")
    require_generic_recovery(document["preimage"].get("operation_kind"), blocked, project.env)
    if document["address"] != backend.address:
        raise StreamtError(Codes.E411_STATE_INVALID, "The recovery plan belongs to another state address.")
    candidate_doc = document["candidate_state"]
    candidate = OwnershipState.from_document(candidate_doc, backend.address) if candidate_doc else None
    prior_checksum = document["preimage"]["state_checksum"]
    expected = candidate.checksum if candidate else prior_checksum
    entry = {
        "blocked_operation_id": blocked,
        "recovery_operation_id": document["recovery_operation_id"],
        "resolution": document["resolution"],
        "evidence_checksum": document["evidence_checksum"],
        "state_checksum": expected,
    }
    done: list[dict[str, Any]] = []
    try:
        with backend.operation_lock():
            done.append(_execute_locked(project, backend, document, entry, candidate))
    except Exception:
        if not done:
            raise
        # The commit was verified inside the lock; only releasing the lock failed.
        raise StreamtError(
            Codes.E426_STATE_RELEASE_FAILED_AFTER_COMMIT,
            f"The recovery committed, but releasing the state lock failed (operation id: {blocked}).",
            "Treat the recovery as committed; do not replay it. Inspect `streamt state status`.",
            details={"operation_id": blocked},
            data={**done[0], "operation_id": blocked, "committed": True},
        ) from None
    return done[0]


def _execute_locked(
    project: Any, backend: Any, document: dict[str, Any], entry: dict[str, Any], candidate: Any
) -> dict[str, Any]:
    blocked = document["blocked_operation_id"]
    prior_checksum = document["preimage"]["state_checksum"]
    expected = entry["state_checksum"]
    state, control = backend.read_state(), backend.read_control()
    current = state.checksum if state else None
    if control.status != CLEAR:
        require_generic_recovery(control.operation_kind, str(control.operation_id), project.env)
    if control.status == CLEAR:
        if current == expected and backend.read_recovery(document["recovery_operation_id"]) == entry:
            return _result(backend, document, state, changed=False)
        raise StreamtError(
            Codes.E424_STATE_CONFLICT,
            "Operation control is clear but does not hold this reviewed recovery's result.",
            "Inspect `streamt state status`; create fresh evidence only if a marker remains.",
            details={"operation_id": blocked},
            data={"operation_id": blocked},
        )
    resumed = backend.read_recovery(document["recovery_operation_id"]) == entry
    if control.operation_id != blocked or (
        not resumed
        and (current != prior_checksum or control.to_document()["checksum"] != document["preimage"]["control_checksum"])
    ):
        raise StreamtError(
            Codes.E424_STATE_CONFLICT,
            "The state or operation control changed after the recovery plan was created.",
            "Create fresh reviewed evidence for the remaining blocker.",
            details={"operation_id": control.operation_id},
            data={"operation_id": control.operation_id},
        )
    if document["resolution"] != "abandoned_before_mutation" and not resumed:
        bindings, targets, _ = observe_targets(project, control, document["resolution"])
        if bindings != document["project"] or targets != document["targets"]:
            raise StreamtError(
                Codes.E409_PLAN_STALE,
                "The project or the live targets no longer match the reviewed evidence.",
                "Create and review a new recovery plan at a new path.",
                details={"operation_id": blocked},
                data={"operation_id": blocked},
            )
    # Read before the commit: once it is verified, reporting needs no backend read that could fail.
    before = backend.status()
    boundary()
    try:
        backend.verify_lock()
        result = backend.commit_recovery(entry, prior_checksum, candidate)
    except StreamtError as exc:
        exc.data.setdefault("operation_id", blocked)
        exc.diagnostics[0].details.setdefault("operation_id", blocked)
        raise
    except OSError:
        raise StreamtError(
            Codes.E425_STATE_UNKNOWN_OUTCOME,
            f"The recovery commit could not be confirmed (operation id: {blocked}).",
            "Inspect `streamt state status`; retry only with the identical file and confirmations.",
            details={"operation_id": blocked},
            data={"operation_id": blocked, "committed": None},
        ) from None
    # commit_recovery clears the blocked marker or raises.
    cleared = {**before, "operation_status": {"status": CLEAR}}
    return _result(backend, document, result, changed=candidate is not None, status=cleared)


def _result(
    backend: Any, document: dict[str, Any], state: Any, changed: bool, status: dict[str, Any] | None = None
) -> dict[str, Any]:
    status = backend.status() if status is None else status
    return {
        "store": {"backend": status["backend"], "store_id": state.store_id if state else status["store_id"]},
        "address": backend.address,
        "state_serial": state.serial if state else 0,
        "state_checksum": state.checksum if state else None,
        "control_status": status["operation_status"]["status"],
        "state_changed": changed,
        "blocked_operation_id": document["blocked_operation_id"],
        "recovery_operation_id": document["recovery_operation_id"],
        "resolution": document["resolution"],
        "evidence_checksum": document["evidence_checksum"],
    }


def _plugins() -> Any:
    from streamt.plugins import get_plugins

    return get_plugins()
