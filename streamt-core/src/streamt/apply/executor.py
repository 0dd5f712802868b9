"""Executing a verified plan: durable intent, batched provider calls, rollback, commit.

The order of durable writes is what makes a crash tell the truth:

1. ``begin_operation`` records the intent (every mutation, in order) before
   the first provider call;
2. before each batch, its actions are recorded ``started``; after it, each
   one ``done``, ``failed`` or ``unknown``;
3. ``commit`` advances the ownership serial and clears the marker.

A batch groups consecutive actions of one kind and one action type (topics
come before the subjects and jobs that need them, so grouping keeps the
dependency order). On the first action that is not ``done`` execution stops,
resources this run created are deleted again (best effort, recorded), and the
marker becomes ``recovery_required``: the failed call's effect may be unknown,
so only reviewed recovery may clear it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import attrs

from streamt import kinds
from streamt.apply.outcome import DONE, UNKNOWN, Outcome
from streamt.artifacts import Artifact
from streamt.boundary import boundary
from streamt.errors import Codes, StreamtError
from streamt.kinds import KindTable
from streamt.log import executor_step
from streamt.plan.model import CREATE, DELETE, UPDATE, Action, Plan
from streamt.plan.tombstones import is_removal, prior_resource_id
from streamt.plugins import Plugins
from streamt.progress import Progress, Silent
from streamt.sdk.protocols import (
    BatchingDeployer,
    CostedBatchDeployer,
    Deployer,
    EvidenceDeployer,
    FailureCodeDeployer,
    OwnerMarkingDeployer,
)
from streamt.state.operations import APPLY_OPERATION
from streamt.state.records import OwnershipRecord
from streamt.untrusted import exception_name

if TYPE_CHECKING:
    from streamt.project.model import Runtime

MUTATING = (CREATE, UPDATE)
RESULTS = {CREATE: "created", UPDATE: "updated", DELETE: "deleted"}


@attrs.frozen
class ApplyReport:
    """What happened: per plan action its result, and the committed state (if any)."""

    results: tuple[tuple[Action, str], ...]
    operation_id: str | None = None
    serial: int | None = None
    checksum: str | None = None


def deployers_by_kind(plugins: Plugins, runtime: Runtime) -> KindTable[Deployer]:
    """The deployer of each kind; a kind two plugins claim is E906 (``streamt.kinds``)."""
    return kinds.deployers(plugins, runtime)


def require_deployers(plan: Plan, deployers: dict[str, Any]) -> None:
    if isinstance(deployers, KindTable):
        deployers.require(action.kind for action in plan.mutations)
    for action in plan.mutations:
        # A delete exists only as a tombstone's reviewed removal (dsl.md section 15).
        allowed = action.action in MUTATING or (action.action == DELETE and is_removal(action.kind))
        if action.kind not in deployers or not allowed:
            raise StreamtError(
                Codes.E904_NOT_IMPLEMENTED,
                f"Applying '{action.action}' to {action.kind} artifacts is not implemented in this release.",
                "Narrow apply with --target/--select, or wait for the provider plugin to support it.",
            )


def desired_records(
    plan: Plan, current: Any, learnt: dict[str, dict[str, Any]] | None = None
) -> tuple[OwnershipRecord, ...]:
    """Existing records, plus one per managed or adopted artifact of this plan.

    Records of resources the plan does not mention are kept: removing a
    declaration never drops ownership (deletion is an explicit tombstone).
    A record's ``attributes`` are what a deployer reported for it (``learnt``,
    by identity), else what the planner put in the action's ``record_attributes``,
    else those of the record it replaces: provider facts stay until one changes them.
    """
    learnt = learnt or {}
    records = dict(current.by_resource) if current is not None else {}
    requirements = {(r.kind, r.identity) for r in plan.ownership_requirements}
    for action in plan.actions:
        if is_removal(action.kind):
            # A tombstone owns nothing; its exact delete ends the prior artifact's ownership.
            if action.action == DELETE:
                records.pop(prior_resource_id(action.kind, action.name, plan.project, plan.environment), None)
            continue
        if action.ownership == "external" or (action.kind, action.identity) in requirements:
            continue
        resource = f"streamt://{plan.project}/{plan.environment}/{action.kind}/{action.name}"
        records[resource] = OwnershipRecord(
            resource_id=resource,
            kind=action.kind,
            name=action.name,
            identity=action.identity,
            ownership=action.ownership,
            artifact_checksum=action.checksum,
            provider=action.provider,
            attributes=_attributes(action, learnt, records.get(resource)),
        )
    return tuple(records[key] for key in sorted(records))


def _attributes(action: Action, learnt: dict[str, dict[str, Any]], previous: Any) -> dict[str, Any]:
    if action.identity in learnt:
        return dict(learnt[action.identity])
    if "record_attributes" in action.evidence:
        return dict(action.evidence["record_attributes"])
    return dict(previous.attributes) if previous is not None else {}


def _intent(position: int, action: Action) -> dict[str, Any]:
    # Identities and checksums only: no spec values, which could carry configuration.
    return {
        "position": position,
        "action": action.action,
        "kind": action.kind,
        "name": action.name,
        "identity": action.identity,
        "checksum": action.checksum,
    }


def _batches(
    mutations: list[tuple[int, Action]], deployers: dict[str, Any], artifacts: dict[tuple[str, str], Artifact]
) -> Iterator[list[tuple[int, Action]]]:
    """Consecutive actions of one kind and action type, at most ``max_batch`` of them and, when the
    deployer prices its actions (``batch_cost(action, artifact)``), at most ``max_batch_cost`` in total
    (a Kafka controller refuses a request needing too many metadata records, whatever the topic count)."""
    batch: list[tuple[int, Action]] = []
    spent = 0
    limits: dict[str, tuple[int, int | None]] = {}  # per kind: a Protocol isinstance costs microseconds
    for index, action in mutations:
        deployer = deployers[action.kind]
        if action.kind not in limits:
            limits[action.kind] = _batch_limits(deployer)
        limit, budget = limits[action.kind]
        cost = int(deployer.batch_cost(action, artifacts[(action.kind, action.identity)])) if budget else 0
        if batch and (
            (batch[0][1].kind, batch[0][1].action) != (action.kind, action.action)
            or len(batch) >= limit
            or (budget and spent + cost > budget)
        ):
            yield batch
            batch, spent = [], 0
        batch.append((index, action))
        spent += cost
    if batch:
        yield batch


def _batch_limits(deployer: Deployer) -> tuple[int, int | None]:
    """``(max_batch, max_batch_cost)``: one action per batch, unpriced, unless the deployer says otherwise."""
    limit = max(1, int(deployer.max_batch)) if isinstance(deployer, BatchingDeployer) else 1
    budget = deployer.max_batch_cost if isinstance(deployer, CostedBatchDeployer) else None
    return limit, budget


def execute(
    plan: Plan,
    artifacts: dict[tuple[str, str], Artifact],
    deployers: dict[str, Any],
    backend: Any,
    on_begin: Callable[[Any], None] | None = None,
    progress: Progress | None = None,
) -> ApplyReport:
    """Run ``plan`` (already verified and unblocked) under the caller's state lock.

    ``on_begin(control)`` runs once the durable intent exists and before the first provider
    call (OpenLineage START of ``apply --emit-openlineage``); it must not raise. ``progress``
    hears each step right after the journal records it.
    """
    current = backend.read_state()
    mutations = list(enumerate(plan.mutations))
    if not mutations and desired_records(plan, current) == (current.records if current is not None else ()):
        # Nothing to change and nothing new to own: no operation, the serial stays.
        return ApplyReport(tuple((a, "unchanged") for a in plan.actions))
    control = backend.begin_operation(APPLY_OPERATION, [_intent(i, a) for i, a in mutations])
    boundary()
    if on_begin is not None:
        on_begin(control)
    results: dict[int, str] = {}
    created: list[tuple[int, Action]] = []
    learnt: dict[str, dict[str, Any]] = {}
    journal = _Journal(backend, control, {a.identity: i for i, a in mutations})
    record = _Recorder(backend, dict(mutations), progress or Silent())
    for batch in _batches(mutations, deployers, artifacts):
        indexes = [i for i, _ in batch]
        control = record(control, indexes, "started")
        boundary()
        kind, verb = batch[0][1].kind, batch[0][1].action
        pairs = [(a, artifacts[(a.kind, a.identity)]) for _, a in batch]
        journal.control = control
        outcomes = _call(deployers[kind], verb, pairs, journal, f"{plan.project}/{plan.environment}")
        control = journal.control
        good = [i for i, a in batch if outcomes[a.identity].status == DONE]
        for _, a in batch:
            if outcomes[a.identity].ok and outcomes[a.identity].attributes is not None:
                learnt[a.identity] = dict(outcomes[a.identity].attributes or {})
        if good:
            control = record(control, good, "done")
        bad = [(i, a, outcomes[a.identity]) for i, a in batch if outcomes[a.identity].status != DONE]
        for i, _a, outcome in bad:
            control = record(control, [i], outcome.status)
        boundary()
        results.update({i: RESULTS[verb] for i in good})
        created += [(i, a) for i, a in batch if i in good and verb == CREATE]
        if bad:
            _fail(record, control, bad, created, artifacts, deployers)
    # Built once, after the deployers reported what they learnt (a record per artifact: ~25 µs each).
    state = backend.commit(control, desired_records(plan, current, learnt))
    boundary()
    by_action = {id(a): results[i] for i, a in mutations}
    return ApplyReport(
        tuple((a, by_action.get(id(a), "unchanged")) for a in plan.actions),
        control.operation_id,
        state.serial,
        state.checksum,
    )


class _Recorder:
    """``backend.record_progress_many``, then the same step told to the debug log and ``progress`` (never before)."""

    def __init__(self, backend: Any, actions: dict[int, Action], progress: Progress) -> None:
        self.backend, self.actions, self.progress = backend, actions, progress

    def __call__(self, control: Any, indexes: list[int], status: str) -> Any:
        control = self.backend.record_progress_many(control, indexes, status)
        actions = [self.actions[i] for i in indexes]
        executor_step(status, actions)
        self.progress.event(status, actions)
        return control


class _Journal:
    """Durable evidence a deployer learns mid-action (``journal(identity, evidence)``).

    A deployer that declares ``writes_evidence = True`` receives it as ``apply(..., journal=...)``
    and calls it *before* the provider call that depends on the fact (a Flink savepoint path
    before the resubmit that restores from it), so that a crash leaves the fact in the marker.
    """

    def __init__(self, backend: Any, control: Any, index_of: dict[str, int]) -> None:
        self.backend, self.control, self.index_of = backend, control, index_of

    def __call__(self, identity: str, evidence: dict[str, Any]) -> None:
        self.control = self.backend.record_progress_many(
            self.control, [self.index_of[identity]], "started", evidence=dict(evidence)
        )
        boundary()


def _call(
    deployer: Any, verb: str, pairs: list[tuple[Action, Artifact]], journal: _Journal, owner: str
) -> dict[str, Outcome]:
    """The deployer's outcomes; an identity it does not answer for is unknown, never success.

    A deployer that sets ``marks_owner`` also gets ``owner=<project>/<env>``: the marker it writes
    into what it creates, so a collision from another project can name it (not part of artifacts,
    whose bytes do not depend on who deploys them)."""
    kwargs: dict[str, Any] = {}
    if isinstance(deployer, EvidenceDeployer) and deployer.writes_evidence:
        kwargs["journal"] = journal
    if isinstance(deployer, OwnerMarkingDeployer) and deployer.marks_owner:
        kwargs["owner"] = owner
    try:
        outcomes = deployer.apply(verb, pairs, **kwargs)
    except Exception as exc:  # a deployer defect after the request may have been sent
        outcomes = {a.identity: Outcome(UNKNOWN, exception_name(exc)) for a, _ in pairs}
    return {a.identity: outcomes.get(a.identity, Outcome(UNKNOWN, "NoOutcome")) for a, _ in pairs}


def _fail(
    record: _Recorder,
    control: Any,
    bad: list[tuple[int, Action, Outcome]],
    created: list[tuple[int, Action]],
    artifacts: dict[tuple[str, str], Artifact],
    deployers: dict[str, Any],
) -> None:
    rolled_back: list[str] = []
    for index, action in reversed(created):
        undone = _rollback(deployers[action.kind], action, artifacts[(action.kind, action.identity)])
        control = record(control, [index], "rolled_back" if undone else "rollback_failed")
        if undone:
            rolled_back.append(action.identity)
    _index, action, outcome = bad[0]
    # A deployer may name its own code for a failed action (a removal whose DELETE proved nothing).
    deployer = deployers.get(action.kind)
    own = deployer.failure_code if isinstance(deployer, FailureCodeDeployer) else None
    code = own or Codes.E407_DEPLOY_ERROR
    control = record.backend.mark_recovery_required(control, code.code)
    boundary()
    what = "was refused" if outcome.status == "failed" else "has an unknown outcome"
    failures = [{"identity": a.identity, "kind": a.kind, "outcome": o.status, "error": o.error} for _, a, o in bad]
    raise StreamtError(
        code,
        f"Apply stopped: {action.action} of {action.kind} '{action.identity}' {what} ({outcome.error}). "
        f"{len(rolled_back)} resource(s) created by this run were rolled back; the recovery marker is kept.",
        "Do not rerun apply: inspect `streamt state status` and the live resources, then use "
        "`streamt state recovery-plan` / `streamt state recover`.",
        details={"operation_id": control.operation_id},
        data={
            "operation_id": control.operation_id,
            "committed": False,
            "failures": failures,
            "rolled_back": rolled_back,
        },
    )


def _rollback(deployer: Any, action: Action, artifact: Artifact) -> bool:
    try:
        return bool(deployer.rollback(action, artifact))
    except Exception:
        return False
