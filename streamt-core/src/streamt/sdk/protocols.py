"""The shapes of the objects plugin hooks return, as typed ``Protocol`` classes.

They are structural contracts for type checkers and readers. A plugin's
observer, planner or deployer is any object with these attributes and
methods; ``streamt_testing.contracts`` holds the behaviour each of them must
also show (create -> no-op -> update -> failure -> rollback, unknown outcomes
never reported as success ...).

What an object *may* also do is a small capability Protocol of its own
(``BatchingDeployer``, ``ExactAdoptionObserver``, ``ReceiptStateBackend`` ...):
core asks ``isinstance(obj, Capability)`` (they are ``runtime_checkable``) and
uses the capability only when the object has it, so each one is optional.

Every signature names only public types of ``streamt.sdk``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from streamt.apply.outcome import Outcome
    from streamt.artifacts import Artifact
    from streamt.discovery.model import Enrichment, TopicMetadata
    from streamt.errors import Diagnostic, ErrorCode
    from streamt.plan.model import Action, Advice, Observation, SafetyBlocker
    from streamt.project.model import Model, Notice, Project, Source, Test
    from streamt.state.records import OperationControl, OwnershipRecord, OwnershipState

    Declaration = Source | Model | Test
    """What ``streamt_compile`` is called with: one source, model or test of the project."""


class Compiler(Protocol):
    """The ``streamt_compile`` hook: one declaration -> the artifacts this plugin owns for it.

    Called once per declaration in DAG order, by every plugin; return ``[]``
    (or ``None``) for declarations you do not own. Same inputs, same bytes:
    no clock, no randomness, no service contact, no file writes.
    """

    def __call__(self, project: Project, declaration: Declaration, env: str) -> Sequence[Artifact] | None:
        """Artifacts for ``declaration`` (``project`` is the whole read view, ``env`` its environment)."""
        ...


class Validator(Protocol):
    """The ``streamt_validate`` hook: plugin findings for a loaded project, without contacting anything."""

    def __call__(self, project: Project, env: str) -> Sequence[Diagnostic | Notice] | None:
        """Diagnostics (errors and warnings) and notices for the declarations this plugin owns."""
        ...


class Observer(Protocol):
    """Reads live state for the artifact kinds in ``kinds``; read-only, clients built lazily."""

    @property
    def kinds(self) -> Sequence[str]:
        """The artifact kinds (``topic``, ``connector`` ...) this observer reads."""
        ...

    def observe(self, artifacts: Sequence[Artifact]) -> Mapping[str, Observation]:
        """One ``Observation`` per artifact, keyed by ``artifact.identity``, in a constant number of requests.

        Raise ``StreamtError`` (``E404``/``E405``/``E406`` ...) when the
        provider cannot be read at all; never report an unreadable resource
        as ``absent``.
        """
        ...


@runtime_checkable
class AdoptionObserver(Observer, Protocol):
    """An observer that also supports ``streamt adopt`` for its kinds."""

    def adoption_review(self, artifact: Artifact) -> dict[str, Any]:
        """The live facts a human reviews before adopting ``artifact`` (no secrets)."""
        ...


@runtime_checkable
class ExactAdoptionObserver(Protocol):
    """An adoption observer with an exact single-resource read (a connector: one ``GET /connectors/<name>``).

    ``adopt`` reviews what it returns instead of ``observe([artifact])``, and reads it again after the
    confirmation: the claim is refused unless nothing changed in between.
    """

    def adoption_observe(self, artifact: Artifact) -> Observation:
        """The live observation of ``artifact`` alone."""
        ...


@runtime_checkable
class AdoptionAttributesObserver(Protocol):
    """An adoption observer that learnt secret-neutral facts the ownership record keeps (a config fingerprint)."""

    def adoption_attributes(self, artifact: Artifact) -> dict[str, Any]:
        """The attributes of the adopted record, from the exact read."""
        ...


@runtime_checkable
class AdoptionPendingObserver(Protocol):
    """An adoption observer that shows pending differences its own way (by key name only, values withheld)."""

    def adoption_pending(self, items: list[Action | SafetyBlocker]) -> list[dict[str, Any]]:
        """``{"action", "summary"}`` or ``{"blocker", "message"}`` per planned item that is not a no-op."""
        ...


@runtime_checkable
class RuntimeStatusObserver(Observer, Protocol):
    """An observer that also reports runtime health for ``streamt status``."""

    def runtime_status(self, artifacts: Sequence[Artifact]) -> Mapping[str, dict[str, Any]]:
        """``{identity: {"state": ..., "healthy": bool, ...}}`` for present artifacts."""
        ...


@runtime_checkable
class TopicOffsetsObserver(Protocol):
    """The ``topic`` observer's ``status --lag`` / ``--consumer-groups``: retained messages and consumer lag."""

    def message_counts(self, names: list[str]) -> dict[str, int]:
        """Messages retained per topic (end minus beginning offsets) of ``names``."""
        ...

    def consumer_groups(self, names: list[str]) -> dict[str, dict[str, int]]:
        """Per consumer group, its lag on each of ``names`` it has committed offsets for."""
        ...


@runtime_checkable
class SubjectCheckingObserver(Protocol):
    """The ``schema`` observer's ``validate --check-schemas``: declared external subjects against the registry."""

    def check_subjects(self, declared: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
        """``(facts, findings)``: one fact per declared subject, and the diagnostics its comparison found."""
        ...


class Planner(Protocol):
    """Turns (desired artifact, observation, ownership record) into actions; a pure function."""

    @property
    def kinds(self) -> Sequence[str]:
        """The artifact kinds this planner plans."""
        ...

    def plan(
        self, artifact: Artifact, observation: Observation, record: OwnershipRecord | None
    ) -> Sequence[Action | SafetyBlocker]:
        """Ordered ``Action`` objects and ``SafetyBlocker`` objects for one artifact.

        ``observation`` is *assumed absent* offline; ``record`` is the
        ownership record streamt holds for the resource (``None`` when it
        owns nothing yet). Must not contact any service.
        """
        ...


@runtime_checkable
class RecoveryClassifyingPlanner(Protocol):
    """A planner that decides reviewed recovery for its kind (``streamt state recovery-plan``)."""

    def classify_recovery(
        self,
        resolution: str,
        intent: dict[str, Any],
        outcomes: list[str],
        evidence: list[dict[str, Any]],
        observation: Observation,
        artifact: Artifact,
    ) -> str | None:
        """``prior``, ``candidate`` or ``None`` (undecidable) for one unfinished action.

        ``evidence`` is what the deployer journaled for the action, in order (a Flink savepoint path).
        """
        ...


@runtime_checkable
class RecoveryAttributesPlanner(Protocol):
    """A planner that gives the ownership record of a recovered ``candidate`` its attributes (the new job ID)."""

    def recovery_record_attributes(
        self, classification: str, evidence: list[dict[str, Any]], observation: Observation, artifact: Artifact
    ) -> dict[str, Any] | None:
        """The record's attributes, or ``None`` for none."""
        ...


@runtime_checkable
class AdvisingPlanner(Planner, Protocol):
    """A planner that also tells ``streamt impact`` what its ``plan`` will do with a change."""

    def advise(self, before: Artifact, after: Artifact) -> Advice:
        """What plan does when ``before`` runs (applied, owned) and ``after`` is compiled in its place.

        Same identity on both sides; offline and pure, like ``plan``: decide with the same rules
        (the upgrade mode it needs, state compatibility, blockers), never contact a service, never
        resolve a secret.
        """
        ...


@runtime_checkable
class IdentityPlanner(Planner, Protocol):
    """A planner of something that runs and reads (a job, a runner, a sink), for ``streamt impact``."""

    def runtime_identity(self, artifact: Artifact) -> Mapping[str, str | None]:
        """What runs for ``artifact``, from its spec: ``name`` (what the provider lists it as),
        ``group`` (its consumer group), ``start`` (where a new group starts reading) and ``writes``
        (its output). Two artifacts with different names are two resources running side by side.
        """
        ...


class Deployer(Protocol):
    """Executes actions for the artifact kinds in ``kinds`` and reports the truth of each one.

    A deployer may name its own stop code (``FailureCodeDeployer``) and mark what it creates with its
    owner (``OwnerMarkingDeployer``).
    """

    @property
    def kinds(self) -> Sequence[str]:
        """The artifact kinds this deployer changes."""
        ...

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]]) -> Mapping[str, Outcome]:
        """Run one batch of ``action`` (``create``/``update``) and return an ``Outcome`` per identity.

        ``done`` only when the provider confirmed; ``failed`` only when it
        refused before any change; otherwise ``unknown``. An identity missing
        from the answer counts as ``unknown``. Never retry a mutation whose
        outcome is unknown. A deployer may set ``max_batch`` (default 1) to
        receive several actions of one kind in one call, and ``max_batch_cost``
        with a ``batch_cost(action, artifact) -> int`` method to bound a batch
        by what it costs the provider rather than by its length (a batch holds
        one action whatever that one costs).
        """
        ...

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Undo a ``create`` this run made (after a later failure); ``True`` only when it is gone."""
        ...


@runtime_checkable
class FailureCodeDeployer(Protocol):
    """A deployer whose failed or unknown action stops apply with its own code instead of ``E407_DEPLOY_ERROR``."""

    @property
    def failure_code(self) -> ErrorCode | None:
        """Its stop code (``E428_CONNECTOR_REMOVAL_DRIFT``: a connector DELETE that proved nothing); ``None``: E407."""
        ...


@runtime_checkable
class BatchingDeployer(Protocol):
    """A deployer that receives up to ``max_batch`` actions of one kind and type in one ``apply`` call."""

    max_batch: int
    """At most this many actions per call (a deployer without it gets one)."""


@runtime_checkable
class CostedBatchDeployer(Protocol):
    """A deployer whose batches are bounded by what they cost the provider, not only by their length."""

    max_batch_cost: int
    """The most a batch may cost in total (a Kafka controller's metadata records per request)."""

    def batch_cost(self, action: Action, artifact: Artifact) -> int:
        """What one action costs; a batch holds one action whatever that one costs."""
        ...


class Journal(Protocol):
    """What an ``EvidenceDeployer`` is handed as ``apply(..., journal=...)``."""

    def __call__(self, identity: str, evidence: dict[str, Any]) -> None:
        """Durably record ``evidence`` (secret-neutral facts) on the action of ``identity`` before returning."""
        ...


@runtime_checkable
class EvidenceDeployer(Protocol):
    """A deployer that journals facts learnt mid-action (a savepoint path, a preimage) before relying on them."""

    writes_evidence: bool
    """``True``: ``apply`` is called with ``journal=``."""

    def apply(
        self, action: str, pairs: Sequence[tuple[Action, Artifact]], journal: Journal = ...
    ) -> Mapping[str, Outcome]:
        """``Deployer.apply``, calling ``journal(identity, evidence)`` *before* the provider call that needs the
        fact, so that a crash leaves it in the operation marker for recovery."""
        ...


@runtime_checkable
class OwnerMarkingDeployer(Protocol):
    """A deployer that writes its owner marker into what it creates (a Gateway interceptor's comment).

    The marker lets a collision from another streamt project name this one; it is kept out of
    artifacts, whose bytes do not depend on who deploys them.
    """

    marks_owner: bool
    """``True``: ``apply`` is called with ``owner="<project>/<env>"``."""

    def apply(
        self, action: str, pairs: Sequence[tuple[Action, Artifact]], owner: str | None = ...
    ) -> Mapping[str, Outcome]:
        """``Deployer.apply``, writing ``owner`` into each resource it creates or updates."""
        ...


@runtime_checkable
class ReplacementPreparingDeployer(Protocol):
    """A deployer that binds the live facts of a reviewed replacement into a format-6 plan (``plan --out``)."""

    def prepare_replacement(self, replacement: dict[str, Any]) -> dict[str, Any]:
        """The facts the plan binds besides the planner's ``replacement`` evidence (offset lower bounds)."""
        ...


@runtime_checkable
class ReplacingDeployer(Protocol):
    """A deployer that coordinates a reviewed replacement itself (``apply --plan <format 6>``), not the executor."""

    def replace(
        self,
        backend: StateBackend,
        binding: dict[str, Any],
        artifact: Artifact,
        verify: Callable[[], None],
        plan_path: str,
        env: str | None,
        on_begin: Callable[[OperationControl], None] | None = None,
    ) -> dict[str, Any]:
        """Begin and drive one replacement under the caller's lock; ``verify()`` before every transition,
        ``on_begin(control)`` once the durable intent exists. Returns ``operation_id``, ``serial``,
        ``state_checksum``, ``candidate_container_id`` and the other facts ``apply`` reports."""
        ...


@runtime_checkable
class RunnerTimeoutDeployer(Protocol):
    """A deployer that waits for a runner: ``apply --runner-timeout`` sets ``runner_timeout`` (seconds)."""

    runner_timeout: float | None


class StateBackend(Protocol):
    """Ownership state, operation control, locking and reviewed recovery for one state address.

    The full protocol core uses (``streamt.state.local.LocalStateBackend`` is
    the reference implementation; ``streamt_testing.contracts.StateBackendContract``
    checks the behaviour). Mutating calls are made under ``operation_lock()``.
    """

    @property
    def name(self) -> str:
        """The backend name as written in ``deployment_state.backend``."""
        ...

    @property
    def address(self) -> str:
        """``streamt-state://<namespace>/<project>/<env>``: the state this object serves."""
        ...

    def status(self) -> dict[str, Any]:
        """Safe metadata: ``backend``, ``store_id``, ``address``, ``state_status``, ``serial``, ``checksum``,
        ``operation_status`` (``OperationControl.safe_status()``); never a secret."""
        ...

    def read_state(self) -> OwnershipState | None:
        """The current ownership state, ``None`` while absent; ``E411`` when it fails its checksum."""
        ...

    def read_control(self) -> OperationControl:
        """The operation control marker (``status`` ``clear`` when no operation is under way)."""
        ...

    def operation_lock(self) -> AbstractContextManager[None]:
        """Exclusive operation authority for a bounded time (``E422`` on timeout)."""
        ...

    def require_clear(self) -> OperationControl:
        """The clear control marker, or ``E419`` when an unfinished operation blocks mutation."""
        ...

    def begin_operation(self, kind: str, actions: Sequence[dict[str, Any]]) -> OperationControl:
        """Durably record the intent (``in_progress``, every planned action) before the first mutation."""
        ...

    def record_progress(self, control: OperationControl, index: int, outcome: str) -> OperationControl:
        """Durably record one action's ``started``/``done``/``failed``/``unknown``/``rolled_back``."""
        ...

    def record_progress_many(
        self,
        control: OperationControl,
        indexes: Sequence[int],
        outcome: str,
        evidence: dict[str, Any] | None = None,
    ) -> OperationControl:
        """The same for a batch of actions, in one durable write.

        ``evidence`` holds secret-neutral facts learnt mid-action (a savepoint
        path) that recovery needs; it is kept on each ``ActionProgress``.
        """
        ...

    def mark_recovery_required(self, control: OperationControl, failure_code: str) -> OperationControl:
        """Turn the marker into ``recovery_required``: only reviewed recovery may clear it now."""
        ...

    def commit(self, control: OperationControl, records: Sequence[OwnershipRecord]) -> OwnershipState:
        """Atomically advance the serial by one with ``records``, write history and clear the marker.

        ``E424`` when the state's serial is no longer ``control.base_serial``.
        """
        ...

    def read_recovery(self, recovery_operation_id: str) -> dict[str, Any] | None:
        """The committed recovery-history entry of one recovery operation, if any."""
        ...

    def verify_lock(self) -> None:
        """``E423`` when the authority taken by ``operation_lock()`` has been lost."""
        ...

    def commit_recovery(
        self, entry: dict[str, Any], prior_checksum: str | None, candidate: OwnershipState | None
    ) -> OwnershipState | None:
        """Record the recovery, install ``candidate`` (when the state changes), then clear the blocked marker.

        Resumable: the identical retry after a crash finds its own entry and finishes.
        """
        ...


@runtime_checkable
class ReceiptStateBackend(Protocol):
    """A state backend that keeps the completion receipts reviewed replacements end with."""

    def write_receipt(self, operation_id: str, document: dict[str, Any]) -> None:
        """Durably record that ``operation_id`` completed with ``document``."""
        ...

    def has_receipt(self, operation_id: str, document: dict[str, Any]) -> bool:
        """Whether exactly that receipt is recorded."""
        ...


class StateBackendFactory(Protocol):
    """``StateBackendRegistration.factory``: builds a backend for one project; connects nowhere yet."""

    def __call__(self, *, project: Project, project_dir: Path, purpose: str) -> StateBackend:
        """``purpose`` is ``read``, ``write`` or ``admin``; a backend may refuse one with ``E420``."""
        ...


class DiscoverySource(Protocol):
    """A read-only discoverer of existing sources (``import``, ``init --discover``)."""

    @property
    def name(self) -> str:
        """The source system it reads (``kafka``), for messages."""
        ...

    @property
    def kinds(self) -> Sequence[str]:
        """The artifact kinds it discovers: ``import`` uses the one discoverer of ``topic``."""
        ...

    def list_topics(self) -> Sequence[TopicMetadata]:
        """Every live topic, internal ones included (core decides what to skip and says so)."""
        ...

    def enrich(self, names: list[str], requested: bool = True) -> Enrichment:
        """Schema lookups for exactly the selected topics (``requested=False``: report ``not_requested``)."""
        ...


class RuntimeReader(Protocol):
    """Reads live runtime health for ``streamt observe`` (``streamt_runtime_readers``); changes nothing."""

    @property
    def kinds(self) -> Sequence[str]:
        """The artifact kinds it reads."""
        ...

    def read(self, artifacts: Sequence[Artifact]) -> Mapping[str, dict[str, Any]]:
        """``{identity: {"state": ..., "healthy": bool, <metric>_<unit>: ...}}`` in a bounded number of requests."""
        ...


class CommandFactory(Protocol):
    """``Exporter.command_factory``: returns the ``click.Command`` of one exporter; cheap, imports nothing heavy."""

    def __call__(self) -> Any:
        """The command, named ``Exporter.name``, whose callback returns a ``streamt.sdk.Result``."""
        ...


__all__ = [
    "AdoptionAttributesObserver",
    "AdoptionObserver",
    "AdoptionPendingObserver",
    "AdvisingPlanner",
    "BatchingDeployer",
    "CommandFactory",
    "Compiler",
    "CostedBatchDeployer",
    "Deployer",
    "DiscoverySource",
    "EvidenceDeployer",
    "ExactAdoptionObserver",
    "FailureCodeDeployer",
    "IdentityPlanner",
    "Journal",
    "Observer",
    "OwnerMarkingDeployer",
    "Planner",
    "ReceiptStateBackend",
    "RecoveryAttributesPlanner",
    "RecoveryClassifyingPlanner",
    "ReplacementPreparingDeployer",
    "ReplacingDeployer",
    "RunnerTimeoutDeployer",
    "RuntimeReader",
    "RuntimeStatusObserver",
    "StateBackend",
    "StateBackendFactory",
    "SubjectCheckingObserver",
    "TopicOffsetsObserver",
    "Validator",
]
