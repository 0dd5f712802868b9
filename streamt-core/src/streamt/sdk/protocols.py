"""The shapes of the objects plugin hooks return, as typed ``Protocol`` classes.

Core never checks these with ``isinstance``: they are structural contracts for
type checkers and readers. A plugin's observer, planner or deployer is any
object with these attributes and methods; ``streamt.testing.contracts`` holds
the behaviour each of them must also show (create -> no-op -> update ->
failure -> rollback, unknown outcomes never reported as success ...).

Every signature names only public types of ``streamt.sdk``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from streamt.apply.outcome import Outcome
    from streamt.artifacts import Artifact
    from streamt.discovery.model import Enrichment, TopicMetadata
    from streamt.errors import Diagnostic
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


class AdoptionObserver(Observer, Protocol):
    """An observer that also supports ``streamt adopt`` for its kinds."""

    def adoption_review(self, artifact: Artifact) -> dict[str, Any]:
        """The live facts a human reviews before adopting ``artifact`` (no secrets)."""
        ...


class RuntimeStatusObserver(Observer, Protocol):
    """An observer that also reports runtime health for ``streamt status``."""

    def runtime_status(self, artifacts: Sequence[Artifact]) -> Mapping[str, dict[str, Any]]:
        """``{identity: {"state": ..., "healthy": bool, ...}}`` for present artifacts."""
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


class AdvisingPlanner(Planner, Protocol):
    """A planner that also tells ``streamt impact`` what its ``plan`` will do with a change."""

    def advise(self, before: Artifact, after: Artifact) -> Advice:
        """What plan does when ``before`` runs (applied, owned) and ``after`` is compiled in its place.

        Same identity on both sides; offline and pure, like ``plan``: decide with the same rules
        (the upgrade mode it needs, state compatibility, blockers), never contact a service, never
        resolve a secret.
        """
        ...


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

    A deployer may set ``failure_code`` (an ``ErrorCode``): apply then stops with that code instead
    of ``E407_DEPLOY_ERROR`` when one of its actions fails or has an unknown outcome
    (``E428_CONNECTOR_REMOVAL_DRIFT`` for a connector DELETE that proved nothing). A deployer that
    sets ``marks_owner = True`` is called as ``apply(action, pairs, owner="<project>/<env>")``: the
    owner marker to write into what it creates (a Gateway interceptor's comment), kept out of
    artifacts so their bytes do not depend on who deploys them.
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


class StateBackend(Protocol):
    """Ownership state, operation control, locking and reviewed recovery for one state address.

    The full protocol core uses (``streamt.state.local.LocalStateBackend`` is
    the reference implementation; ``streamt.testing.contracts.StateBackendContract``
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
    "AdoptionObserver",
    "CommandFactory",
    "Compiler",
    "Deployer",
    "DiscoverySource",
    "Observer",
    "Planner",
    "RuntimeReader",
    "RuntimeStatusObserver",
    "StateBackend",
    "StateBackendFactory",
    "Validator",
]
