"""The conformance kit: base test classes every plugin's suite subclasses with ``pass``.

A plugin proves it keeps the contract by subclassing the class for its kind
and providing the fixtures the class names (everything else is inherited)::

    from streamt_testing.contracts import StateBackendContract

    class TestJsonDirBackend(StateBackendContract):
        @pytest.fixture
        def state_backend_factory(self, tmp_path):
            return lambda: make_my_backend(tmp_path)

The classes only use ``streamt.sdk`` objects, so the same checks hold for
core's own ``local`` backend, the PostgreSQL backend and any third party's.

* ``StateBackendContract`` — locking, atomic commit, marker and recovery
  semantics, history, idempotent repeat, concurrent writers.
* ``ProviderContract`` — an observer/planner/deployer trio: create -> no-op
  -> update (or its safety blocker) -> failure -> rollback, and an unknown
  outcome never reported as success.
* ``ExporterContract`` — one envelope, deterministic bytes, atomic
  ``--output-file``, no secrets.
* ``CompilerContract`` — the same project compiles to the same bytes.
* ``ValidationRuleContract`` — a ``streamt_validate`` rule: registered codes,
  a location at the declaration, a suggestion, no secret.

Every check first asserts that the command or hook ran (an equal failure
twice proves nothing), and secret scans read text and JSON output, written
files and DEBUG logs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from ruamel.yaml import YAML
from streamt.artifact_kinds import artifact_kinds
from streamt.plugins import get_plugins
from streamt.redact import without_secrets
from streamt.sdk import (
    ABSENT,
    ASSUMED_ABSENT,
    CREATE,
    DONE,
    FAILED,
    NOOP,
    PRESENT,
    UNAVAILABLE,
    UNKNOWN,
    UPDATE,
    Action,
    Artifact,
    Codes,
    Deployer,
    EvidenceDeployer,
    Observer,
    OperationControl,
    Outcome,
    OwnershipRecord,
    OwnershipState,
    Planner,
    SafetyBlocker,
    StateBackend,
    StreamtError,
    canonical_json,
    sha256_checksum,
)

from streamt_testing import run_cli, run_cli_text, write_project

__all__ = [
    "CompilerContract",
    "ExporterContract",
    "ProviderContract",
    "StateBackendContract",
    "ValidationRuleContract",
]


def _code(error: pytest.ExceptionInfo[StreamtError]) -> str:
    return error.value.diagnostics[0].code.code


def _record(backend: StateBackend, name: str, checksum: str = "sha256:" + "0" * 64) -> OwnershipRecord:
    project, env = backend.address.removeprefix("streamt-state://").split("/")[1:3]
    return OwnershipRecord(
        resource_id=f"streamt://{project}/{env}/topic/{name}",
        kind="topic",
        name=name,
        identity=name,
        ownership="managed",
        artifact_checksum=checksum,
        provider="streamt-contract",
    )


class StateBackendContract:
    """What every deployment-state backend does (``streamt.sdk.StateBackend``).

    Provide ``state_backend_factory``: a zero-argument callable returning a
    *new* backend object for one and the same fresh, empty state address each
    time it is called (two objects stand for two processes), configured with a
    lock timeout of at most a few seconds.
    """

    @pytest.fixture
    def state_backend_factory(self) -> Callable[[], StateBackend]:
        raise NotImplementedError("a StateBackendContract subclass provides the state_backend_factory fixture")

    def test_a_fresh_address_is_absent_and_clear(self, state_backend_factory: Callable[[], StateBackend]) -> None:
        backend = state_backend_factory()
        assert backend.read_state() is None
        assert backend.read_control().status == "clear"
        status = backend.status()
        assert {"backend", "address", "state_status", "serial", "checksum", "operation_status"} <= set(status)
        assert (status["state_status"], status["serial"], status["checksum"]) == ("absent", 0, None)
        assert status["backend"] == backend.name and status["address"] == backend.address

    def test_commit_advances_the_serial_by_one_and_clears_the_marker(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        backend = state_backend_factory()
        with backend.operation_lock():
            control = backend.begin_operation("apply", [{"position": 0, "action": "create", "identity": "orders"}])
            assert backend.read_control().status == "in_progress"
            control = backend.record_progress_many(control, [0], "started")
            control = backend.record_progress(control, 0, "done")
            state = backend.commit(control, [_record(backend, "orders")])
        assert state.serial == 1 and backend.read_control().status == "clear"
        again = state_backend_factory().read_state()  # another process sees exactly the committed state
        assert again is not None and again.checksum == state.checksum and again.serial == 1
        assert [r.identity for r in again.records] == ["orders"]
        status = state_backend_factory().status()
        assert (status["state_status"], status["serial"], status["checksum"]) == ("present", 1, state.checksum)

    def test_history_grows_one_serial_per_commit_and_keeps_the_store(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        backend = state_backend_factory()
        serials, stores = [], set()
        for names in (["a"], ["a", "b"], ["b"]):
            with backend.operation_lock():
                state = backend.commit(backend.begin_operation("apply", []), [_record(backend, n) for n in names])
            serials.append(state.serial)
            stores.add(state.store_id)
        assert serials == [1, 2, 3] and len(stores) == 1
        final = state_backend_factory().read_state()
        assert final is not None and [r.identity for r in final.records] == ["b"]

    def test_progress_is_durable_before_the_commit(self, state_backend_factory: Callable[[], StateBackend]) -> None:
        backend = state_backend_factory()
        with backend.operation_lock():
            control = backend.begin_operation("apply", [{"position": 0}, {"position": 1}])
            control = backend.record_progress_many(control, [0, 1], "started")
            backend.record_progress_many(control, [1], "started", evidence={"savepoint": "file:///sp/1"})
            seen = state_backend_factory().read_control()  # a crash now leaves this behind
        assert seen.status == "in_progress" and seen.operation_id == control.operation_id
        assert [(p.index, p.outcome) for p in seen.progress] == [(0, "started"), (1, "started"), (1, "started")]
        assert seen.progress[-1].evidence == {"savepoint": "file:///sp/1"}
        assert len(seen.actions) == 2

    def test_an_unfinished_marker_blocks_the_next_operation_until_recovery(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        backend = state_backend_factory()
        with backend.operation_lock():
            control = backend.begin_operation("apply", [{"position": 0}])
            backend.mark_recovery_required(control, "E407_DEPLOY_ERROR")
        other = state_backend_factory()
        with other.operation_lock(), pytest.raises(StreamtError) as caught:
            other.begin_operation("apply", [])
        assert _code(caught) == "E419_STATE_RECOVERY_REQUIRED"
        with pytest.raises(StreamtError) as caught:
            other.require_clear()
        assert _code(caught) == "E419_STATE_RECOVERY_REQUIRED"
        operation = other.status()["operation_status"]
        assert (operation["status"], operation["operation_id"], operation["failure_code"]) == (
            "recovery_required",
            control.operation_id,
            "E407_DEPLOY_ERROR",
        )

    def test_a_stale_base_serial_is_a_conflict_and_changes_nothing(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        backend = state_backend_factory()
        with backend.operation_lock():
            control = backend.begin_operation("apply", [])
            with pytest.raises(StreamtError) as caught:
                backend.commit(attrs.evolve(control, base_serial=5), [_record(backend, "x")])
        assert _code(caught) == "E424_STATE_CONFLICT"
        assert state_backend_factory().read_state() is None

    def test_a_second_writer_waits_for_the_lock_then_times_out(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        first, second = state_backend_factory(), state_backend_factory()
        with first.operation_lock():
            first.verify_lock()
            with pytest.raises(StreamtError) as caught, second.operation_lock():
                pass
        assert _code(caught) == "E422_STATE_LOCK_TIMEOUT"
        with second.operation_lock():  # released: the next writer gets it
            second.verify_lock()

    def test_recovery_clears_the_marker_once_and_an_identical_repeat_is_idempotent(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        backend = state_backend_factory()
        with backend.operation_lock():
            control = backend.begin_operation("apply", [{"position": 0}])
            control = backend.mark_recovery_required(control, "E407_DEPLOY_ERROR")
        entry = _recovery_entry(control, None)
        with backend.operation_lock():
            backend.verify_lock()
            assert backend.commit_recovery(entry, None, None) is None
        assert backend.read_control().status == "clear"
        assert state_backend_factory().read_recovery(entry["recovery_operation_id"]) == entry
        with backend.operation_lock():  # the identical retry after a crash finds its own entry
            assert backend.commit_recovery(entry, None, None) is None
        assert backend.read_control().status == "clear" and backend.read_state() is None

    def test_recovery_can_install_the_reviewed_candidate_state(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        backend = state_backend_factory()
        with backend.operation_lock():
            control = backend.begin_operation("apply", [{"position": 0}])
            control = backend.mark_recovery_required(control, "E407_DEPLOY_ERROR")
        store_id = backend.status()["store_id"] or str(uuid.uuid4())  # a store may exist before its first state
        candidate = OwnershipState(store_id, backend.address, 1, (_record(backend, "orders"),))
        entry = _recovery_entry(control, candidate.checksum, resolution="observed")
        with backend.operation_lock():
            installed = backend.commit_recovery(entry, None, candidate)
        assert installed is not None and installed.serial == 1
        reread = state_backend_factory().read_state()
        assert reread is not None and reread.checksum == candidate.checksum
        assert backend.read_control().status == "clear"

    def test_an_object_that_does_not_hold_the_lock_cannot_verify_it(
        self, state_backend_factory: Callable[[], StateBackend]
    ) -> None:
        # A lost lock (E423) stops every mutation: verify_lock must really check, not pass by default.
        with pytest.raises(StreamtError) as caught:
            state_backend_factory().verify_lock()
        assert _code(caught) == "E423_STATE_LOCK_LOST"
        holder = state_backend_factory()
        with holder.operation_lock():
            holder.verify_lock()

    def test_status_is_free_of_secrets(self, state_backend_factory: Callable[[], StateBackend]) -> None:
        backend = state_backend_factory()
        with backend.operation_lock():
            backend.commit(backend.begin_operation("apply", []), [_record(backend, "orders")])
        status = state_backend_factory().status()
        canonical_json(status)  # shown by `state status -o json`: JSON, nothing else
        assert without_secrets(status) == _as_json_data(status), (
            "status() shows a secret-named field or a URL credential"
        )


def _recovery_entry(
    control: OperationControl, state_checksum: str | None, resolution: str = "rolled_back"
) -> dict[str, Any]:
    return {
        "blocked_operation_id": control.operation_id,
        "recovery_operation_id": str(uuid.uuid4()),
        "resolution": resolution,
        "evidence_checksum": sha256_checksum(b"contract evidence"),
        "state_checksum": state_checksum,
    }


class ProviderContract:
    """What an observer/planner/deployer trio does for one artifact kind, against its real service.

    Provide these fixtures:

    * ``provider`` — ``(observer, planner, deployer)`` for the kind;
    * ``desired`` — a managed ``Artifact`` that does not exist live yet
      (unique per test: the class creates it, so clean it up in the fixture);
    * ``changed`` — ``changed(artifact)``: the same identity with another spec,
      or ``None`` when the kind has no updates. The planner plans it as an
      ``update`` the kit applies (one whose ``evidence.requires`` asks for a
      reviewed plan or ``--force`` is applied as ``apply --plan --force``
      would: the kit stands in for the review), or refuses it with a
      ``SafetyBlocker`` beside the action, when the live resource must stay
      as it is;
    * ``refused`` — a managed artifact whose ``create`` the provider refuses
      before changing anything (e.g. an invalid setting), or ``None``;
    * ``unanswered`` — the same trio configured against a service that does
      not answer (a closed port), or ``None``: its observer must raise a
      ``StreamtError`` or observe ``unavailable`` (never ``absent``), and its
      deployer's create must be ``failed`` or ``unknown`` (never ``done``);
    * ``keeps_history`` — ``True`` when the service keeps listing what it ran
      after it stopped (a Flink cluster lists cancelled jobs until they
      expire): after a rollback the kit then accepts a ``present``
      observation, as long as a plan without a record creates the artifact
      again. Default ``False``: rolled back is ``absent``.

    Every apply the kit makes is checked the way core reads it: the deployer
    answers for exactly the identities it was given, with ``done``,
    ``failed`` or ``unknown`` (an unknown outcome is never success); a
    deployer that ``writes_evidence`` gets a journal, and what it journals
    must be JSON. The record the kit hands the planner after an apply is the
    one core writes: the artifact's checksum with the outcome's
    ``attributes`` (else the action's ``record_attributes``).
    """

    @pytest.fixture
    def provider(self) -> tuple[Observer, Planner, Deployer]:
        raise NotImplementedError("a ProviderContract subclass provides the provider fixture")

    @pytest.fixture
    def desired(self) -> Artifact:
        raise NotImplementedError("a ProviderContract subclass provides the desired fixture")

    @pytest.fixture
    def changed(self) -> Callable[[Artifact], Artifact | None]:
        return lambda _artifact: None

    @pytest.fixture
    def refused(self) -> Artifact | None:
        return None

    @pytest.fixture
    def keeps_history(self) -> bool:
        return False

    @pytest.fixture
    def unanswered(self) -> tuple[Observer, Planner, Deployer] | None:
        return None

    def _plan(self, planner: Planner, artifact: Artifact, observer: Observer, record: Any) -> list[Any]:
        observation = observer.observe([artifact])[artifact.identity]
        return list(planner.plan(artifact, observation, record))

    def _actions(self, planner: Planner, artifact: Artifact, observer: Observer, record: Any) -> list[Action]:
        return [a for a in self._plan(planner, artifact, observer, record) if isinstance(a, Action)]

    def _apply(self, deployer: Deployer, verb: str, action: Action, artifact: Artifact) -> Outcome:
        journaled: list[tuple[str, dict[str, Any]]] = []

        def journal(identity: str, evidence: dict[str, Any]) -> None:
            journaled.append((identity, evidence))

        # `journal=` is an optional capability (EvidenceDeployer), asked for as core's executor asks.
        if isinstance(deployer, EvidenceDeployer) and deployer.writes_evidence:
            outcomes = deployer.apply(verb, [(action, artifact)], journal=journal)
        else:
            outcomes = deployer.apply(verb, [(action, artifact)])
        assert set(outcomes) == {artifact.identity}, outcomes  # core reads a missing identity as unknown
        outcome = outcomes[artifact.identity]
        assert outcome.status in (DONE, FAILED, UNKNOWN), outcome
        assert all(identity == artifact.identity for identity, _ in journaled), journaled
        canonical_json([facts for _, facts in journaled])  # durable progress: JSON, nothing else
        return outcome

    @pytest.fixture
    def batch_of(self) -> Callable[[Artifact, int], Artifact]:
        """``batch_of(desired, i)``: another artifact of the kind that does not exist live (default: renamed)."""
        return lambda artifact, i: attrs.evolve(
            artifact, name=f"{artifact.name}-batch{i}", identity=f"{artifact.identity}-batch{i}"
        )

    @pytest.fixture
    def unbatched_reason(self) -> str | None:
        """Why this kind's service cannot be read in one batch (``None``: it can, and the kit checks it)."""
        return None

    def test_observing_many_artifacts_costs_what_observing_one_does(
        self,
        provider: tuple[Observer, Planner, Deployer],
        desired: Artifact,
        batch_of: Callable[[Artifact, int], Artifact],
        unbatched_reason: str | None,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # Batched reads: the number of requests (socket sends and connects, counted, never timed)
        # must not grow with the number of artifacts.
        if unbatched_reason is not None:
            pytest.skip(f"reads one request per artifact: {unbatched_reason}")
        observer = provider[0]
        many = [desired, *(batch_of(desired, i) for i in range(1, BATCH))]
        observer.observe([desired])  # clients connect and learn their cluster once
        requests = _count_requests(monkeypatch)
        one = _observed(observer, [desired], requests)
        all_of_them = _observed(observer, many, requests)
        assert all_of_them <= 2 * max(one, 1) + 1, (
            f"observing {BATCH} artifacts took {all_of_them} requests, one took {one}: observe them in one batch"
        )

    def test_the_kind_is_served_by_all_three(
        self, provider: tuple[Observer, Planner, Deployer], desired: Artifact
    ) -> None:
        observer, planner, deployer = provider
        assert desired.kind in observer.kinds and desired.kind in planner.kinds and desired.kind in deployer.kinds

    def test_create_then_noop_then_update(
        self,
        provider: tuple[Observer, Planner, Deployer],
        desired: Artifact,
        changed: Callable[[Artifact], Artifact | None],
    ) -> None:
        observer, planner, deployer = provider
        assert observer.observe([desired])[desired.identity].status == ABSENT
        (create,) = self._actions(planner, desired, observer, None)
        assert create.action == CREATE and create.identity == desired.identity
        outcome = self._apply(deployer, CREATE, create, desired)
        assert outcome.status == DONE, outcome
        assert observer.observe([desired])[desired.identity].status == PRESENT
        record = _record_after(create, outcome, desired)
        actions = self._actions(planner, desired, observer, record)
        assert [a.action for a in actions] == [NOOP], actions
        update = changed(desired)
        if update is None:
            return
        items = self._plan(planner, update, observer, record)
        blockers = [b for b in items if isinstance(b, SafetyBlocker)]
        actions = [a for a in items if isinstance(a, Action)]
        if blockers:  # refused for review: nothing may be applied, and the live resource stays as it was
            assert {b.identity for b in blockers} == {update.identity}, blockers
            still = self._actions(planner, desired, observer, record)
            assert [a.action for a in still] == [NOOP], still
            return
        assert [a.action for a in actions] == [UPDATE], actions
        updated = self._apply(deployer, UPDATE, actions[0], update)
        assert updated.status == DONE, updated
        after = self._actions(planner, update, observer, _record_after(actions[0], updated, update, record))
        assert [a.action for a in after] == [NOOP], after

    def test_rollback_removes_exactly_what_was_created(
        self, provider: tuple[Observer, Planner, Deployer], desired: Artifact, keeps_history: bool
    ) -> None:
        observer, planner, deployer = provider
        (create,) = self._actions(planner, desired, observer, None)
        assert self._apply(deployer, CREATE, create, desired).status == DONE
        assert deployer.rollback(create, desired) is True
        observation = observer.observe([desired])[desired.identity]
        if keeps_history and observation.status == PRESENT:  # listed as history only: planned as new again
            again = list(planner.plan(desired, observation, None))
            assert [a.action for a in again if isinstance(a, Action)] == [CREATE], again
        else:
            assert observation.status == ABSENT, observation

    def test_a_refused_create_is_failed_and_changes_nothing(
        self, provider: tuple[Observer, Planner, Deployer], refused: Artifact | None
    ) -> None:
        if refused is None:
            pytest.skip("this provider declares no refusable create")
        observer, _planner, deployer = provider
        action = Action.for_artifact(CREATE, refused, "", observer.observe([refused])[refused.identity])
        outcome = self._apply(deployer, CREATE, action, refused)
        assert outcome.status == FAILED and outcome.error, outcome
        assert observer.observe([refused])[refused.identity].status == ABSENT

    def test_a_service_that_does_not_answer_is_never_absent_nor_done(
        self, unanswered: tuple[Observer, Planner, Deployer] | None, desired: Artifact
    ) -> None:
        if unanswered is None:
            pytest.skip("this provider declares no unanswered service")
        observer, _planner, deployer = unanswered
        try:
            observation = observer.observe([desired]).get(desired.identity)
        except StreamtError as error:
            assert error.diagnostics, error  # a structured error (E406), never a guess
        else:
            assert observation is not None and observation.status == UNAVAILABLE, observation
        outcome = self._apply(deployer, CREATE, Action.for_artifact(CREATE, desired, "", ASSUMED_ABSENT), desired)
        assert outcome.status in (FAILED, UNKNOWN), outcome


BATCH = 8


def _count_requests(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of connects and sends on every socket of the process, from now on."""
    counter = [0]
    for method in ("connect", "connect_ex", "send", "sendall", "sendto", "sendmsg"):
        original = getattr(socket.socket, method)

        def counted(self: socket.socket, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            counter[0] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(socket.socket, method, counted)
    return counter


def _observed(observer: Observer, artifacts: list[Artifact], requests: list[int]) -> int:
    start = requests[0]
    observations = observer.observe(artifacts)
    assert {a.identity for a in artifacts} <= set(observations), observations  # one observation each
    return requests[0] - start


def _record_after(
    action: Action, outcome: Outcome, artifact: Artifact, previous: OwnershipRecord | None = None
) -> OwnershipRecord:
    """The record core writes after ``action`` was applied (``apply.executor.desired_records``)."""
    if outcome.attributes is not None:
        attributes = dict(outcome.attributes)
    elif "record_attributes" in action.evidence:
        attributes = dict(action.evidence["record_attributes"])
    else:
        attributes = dict(previous.attributes) if previous is not None else {}
    return attrs.evolve(_record_of(artifact), attributes=attributes)


def _record_of(artifact: Artifact) -> OwnershipRecord:
    return OwnershipRecord(
        resource_id=f"streamt://contract/default/{artifact.kind}/{artifact.name}",
        kind=artifact.kind,
        name=artifact.name,
        identity=artifact.identity,
        ownership=artifact.ownership,
        artifact_checksum=artifact.checksum,
        provider=artifact.provider,
    )


EXPORTER_PROJECT = {
    "stream_project.yml": {
        "apiVersion": "streamt.dev/v1alpha1",
        "project": {"name": "contract-shop", "version": "1.2.0", "description": "Orders for the exporter contract"},
        "runtime": {
            "kafka": {
                "bootstrap_servers": "broker.example:9092",
                "security_protocol": "SASL_SSL",
                "sasl_mechanism": "PLAIN",
                "sasl_username": "exporter",
                "sasl_password": "${STREAMT_CONTRACT_SECRET}",
            },
            "schema_registry": {
                "url": "http://registry.example:8081",
                "username": "exporter",
                "password": "${STREAMT_CONTRACT_SECRET}",
            },
        },
        "defaults": {"topic": {"partitions": 3, "replication_factor": 3}},
        "sources": [
            {
                "name": "orders_raw",
                "topic": "orders.raw.v1",
                "owner": "team-checkout",
                "description": "Orders as accepted",
                "ownership": {"mode": "managed"},
                "schema": {"format": "avro"},
                "columns": [
                    {"name": "order_id", "type": "STRING", "description": "Order id"},
                    {"name": "amount_cents", "type": "BIGINT", "description": "Amount"},
                ],
            }
        ],
        "models": [
            {
                "name": "orders_retry",
                "owner": "team-checkout",
                "description": "Orders to re-process",
                "advanced": {"topic": {"name": "orders.retry.v1", "config": {"retention.ms": 259200000}}},
            }
        ],
        "exposures": [
            {
                "name": "checkout_service",
                "type": "application",
                "role": "both",
                "owner": "team-checkout",
                "produces": [{"source": "orders_raw"}, {"ref": "orders_retry"}],
            }
        ],
    }
}


class ExporterContract:
    """What an exporter command does (``streamt <group> <name> OPTIONS``), through the real CLI.

    Provide ``exporter_args`` (e.g. ``["docs", "odcs", "--contract-id", "shop", "--status", "active"]``).
    The default ``exporter_project`` is a small Kafka project whose runtime
    passwords are ``${STREAMT_CONTRACT_SECRET}``, set to a sentinel that must
    never reach the output; override it (and ``secret_env``) for other
    projects. ``output_option`` is the option that writes the document to a
    file (``None`` when the exporter has none).
    """

    SECRET = "contract-sentinel-s3cr3t"

    @pytest.fixture
    def exporter_args(self) -> Sequence[str]:
        raise NotImplementedError("an ExporterContract subclass provides the exporter_args fixture")

    @pytest.fixture
    def exporter_project(self, tmp_path: Path) -> Path:
        return write_project(tmp_path / "exporter-project", EXPORTER_PROJECT)

    @pytest.fixture
    def secret_env(self) -> Sequence[str]:
        return ("STREAMT_CONTRACT_SECRET",)

    @pytest.fixture
    def output_option(self) -> str | None:
        return "--output-file"

    @pytest.fixture(autouse=True)
    def _sentinel(self, secret_env: Sequence[str], monkeypatch: pytest.MonkeyPatch) -> None:
        for name in secret_env:
            monkeypatch.setenv(name, self.SECRET)

    def test_one_envelope_with_the_document(self, exporter_args: Sequence[str], exporter_project: Path) -> None:
        outcome = _succeeded(run_cli(*exporter_args, "--project-dir", exporter_project))  # one envelope, or raises
        assert outcome.envelope["command"] == " ".join(a for a in exporter_args[:2])
        assert outcome.data

    def test_the_same_project_exports_the_same_bytes(
        self, exporter_args: Sequence[str], exporter_project: Path
    ) -> None:
        first = _succeeded(run_cli(*exporter_args, "--project-dir", exporter_project))
        second = _succeeded(run_cli(*exporter_args, "--project-dir", exporter_project))
        assert canonical_json(first.envelope["data"]) == canonical_json(second.envelope["data"])
        text = run_cli_text(*exporter_args, "--project-dir", exporter_project)
        again = run_cli_text(*exporter_args, "--project-dir", exporter_project)
        assert text.exit_code == again.exit_code == 0, text
        assert text.stdout == again.stdout

    def test_output_file_is_written_whole_or_not_at_all(
        self, exporter_args: Sequence[str], exporter_project: Path, output_option: str | None, tmp_path: Path
    ) -> None:
        if output_option is None:
            pytest.skip("this exporter writes to stdout only")
        target = tmp_path / "out" / "document"
        target.parent.mkdir()
        done = run_cli(*exporter_args, "--project-dir", exporter_project, output_option, target)
        assert done.ok, done.envelope
        written = target.read_bytes()
        assert written and not [p for p in target.parent.iterdir() if p != target]  # no temporary left
        again = run_cli(*exporter_args, "--project-dir", exporter_project, output_option, target)
        assert again.ok and target.read_bytes() == written
        blocker = tmp_path / "a-file"
        blocker.write_text("not a directory")
        refused = run_cli(*exporter_args, "--project-dir", exporter_project, output_option, blocker / "document")
        assert not refused.ok and refused.error_codes and blocker.read_text() == "not a directory"
        assert self.SECRET.encode() not in written

    def test_no_secret_reaches_the_output(
        self,
        exporter_args: Sequence[str],
        exporter_project: Path,
        secret_env: Sequence[str],
        output_option: str | None,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.setenv("STREAMT_LOG_LEVEL", "DEBUG")  # the logs are output too
        outcome = _succeeded(run_cli(*exporter_args, "--project-dir", exporter_project))
        text = run_cli_text(*exporter_args, "--project-dir", exporter_project)
        assert text.exit_code == 0, text
        _assert_secret_free(self.SECRET, outcome.stdout, outcome.stderr, text.stdout, text.stderr)
        if output_option is not None:
            target = tmp_path / "secret-scan" / "document"
            target.parent.mkdir()
            _succeeded(run_cli(*exporter_args, "--project-dir", exporter_project, output_option, target))
            _assert_secret_free(self.SECRET, target.read_text(encoding="utf-8", errors="replace"))
        assert all(os.environ.get(name) == self.SECRET for name in secret_env)


def _as_json_data(value: Any) -> Any:
    """``value`` with tuples as lists, as ``without_secrets`` returns it."""
    return json.loads(canonical_json(value))


def _succeeded(outcome: Any) -> Any:
    """The outcome of a command that must have run: equal failures (E900 twice) prove nothing."""
    assert outcome.ok, outcome.envelope
    return outcome


def _assert_secret_free(secret: str, *texts: str) -> None:
    """No text holds ``secret``, as written or JSON-escaped."""
    escaped = json.dumps(secret)[1:-1]
    for text in texts:
        assert secret not in text and escaped not in text, "the secret reached the output"


class CompilerContract:
    """What a compiler (``streamt_compile``) does: the same project compiles to the same bytes.

    Provide ``compiler_project`` (a project directory with declarations your
    plugin compiles) and ``compiler_kinds`` (the artifact kinds it produces
    there). Compiling never contacts a service, so no runtime is needed. Each
    kind must be registered (``streamt_artifact_kinds``), and its files are
    where the registration puts them.
    """

    @pytest.fixture
    def compiler_project(self) -> Path:
        raise NotImplementedError("a CompilerContract subclass provides the compiler_project fixture")

    @pytest.fixture
    def compiler_kinds(self) -> Sequence[str]:
        raise NotImplementedError("a CompilerContract subclass provides the compiler_kinds fixture")

    def _compiled(self, project: Path) -> dict[str, Any]:
        outcome = run_cli("compile", "--project-dir", project, "--dry-run")
        assert outcome.ok, outcome.envelope
        data: dict[str, Any] = outcome.envelope["data"]
        return data

    def test_compiling_twice_gives_the_same_bytes(self, compiler_project: Path) -> None:
        first, second = self._compiled(compiler_project), self._compiled(compiler_project)
        assert canonical_json(first) == canonical_json(second)

    def test_the_plugin_contributes_its_kinds(self, compiler_project: Path, compiler_kinds: Sequence[str]) -> None:
        kinds = {artifact["kind"] for artifact in self._compiled(compiler_project)["artifacts"]}
        assert set(compiler_kinds) <= kinds, kinds

    def test_the_kinds_are_registered_where_their_files_go(
        self, compiler_project: Path, compiler_kinds: Sequence[str]
    ) -> None:
        registry = artifact_kinds(get_plugins())
        unregistered = sorted(set(compiler_kinds) - set(registry.table))
        assert not unregistered, f"no plugin registers {unregistered} (streamt_artifact_kinds)"
        files = self._compiled(compiler_project)["files"]
        for kind in compiler_kinds:
            directory, _ = registry.placement(kind)
            assert any(path.startswith(f"{directory}/") for path in files), (kind, directory, files)

    def test_checksums_cover_the_canonical_spec_bytes(self, compiler_project: Path) -> None:
        data = self._compiled(compiler_project)
        checksums = [artifact["checksum"] for artifact in data["artifacts"]]
        assert checksums and all(c.startswith("sha256:") and len(c) == 71 for c in checksums)


class ValidationRuleContract:
    """What a validation rule (``streamt_validate``) reports, through ``streamt validate``.

    Provide ``rule_plugin`` (the plugin module or object, registered by the kit
    with every other plugin switched off), ``rule_project`` (a project
    directory that breaks the rule) and ``rule_codes`` (the codes it reports
    there). The kit adds a Kafka password ``${STREAMT_CONTRACT_SECRET}`` to a
    copy of the project, set to a sentinel that must never reach the output.
    """

    SECRET = "contract-sentinel-s3cr3t"

    @pytest.fixture
    def rule_plugin(self) -> object:
        raise NotImplementedError("a ValidationRuleContract subclass provides the rule_plugin fixture")

    @pytest.fixture
    def rule_project(self) -> Path:
        raise NotImplementedError("a ValidationRuleContract subclass provides the rule_project fixture")

    @pytest.fixture
    def rule_codes(self) -> Sequence[str]:
        raise NotImplementedError("a ValidationRuleContract subclass provides the rule_codes fixture")

    @pytest.fixture(autouse=True)
    def _registered(self, rule_plugin: object, streamt_plugin: Callable[..., object]) -> None:
        streamt_plugin(rule_plugin, name="rule-under-contract", isolated=True)

    def _findings(self, project: Path, rule_codes: Sequence[str]) -> list[dict[str, Any]]:
        outcome = run_cli("validate", "--project-dir", project)
        problems = [d for d in outcome.envelope["errors"] + outcome.envelope["warnings"]]
        broken = [d for d in problems if d["code"] in ("E999_INTERNAL_ERROR", "E901_PLUGIN_LOAD_FAILED")]
        assert not broken, f"the rule did not run: {broken}"
        findings = [d for d in problems if d["code"] in rule_codes]
        assert findings, f"the rule reported none of {list(rule_codes)}: {outcome.envelope}"
        return findings

    def test_the_rule_reports_registered_codes(
        self, rule_plugin: object, rule_project: Path, rule_codes: Sequence[str]
    ) -> None:
        declared: list[Any] = getattr(rule_plugin, "streamt_error_codes", lambda: [])() or []
        own = {code.code for code in declared}
        for finding in self._findings(rule_project, rule_codes):
            code = finding["code"]
            assert code in Codes, f"{code} is not registered"
            assert code in own or Codes.get(code).owner == "streamt-core", f"{code} is neither core's nor declared"

    def test_every_finding_points_at_the_declaration(self, rule_project: Path, rule_codes: Sequence[str]) -> None:
        """The location is ``file:line[:col]`` of the entry that declares what the message names (``'name'``)."""
        for finding in self._findings(rule_project, rule_codes):
            location = finding.get("location")
            assert location, f"no location: {finding}"
            path, _, position = str(location).partition(":")
            line = int(position.split(":")[0]) if position.split(":")[0].isdigit() else 0
            file = rule_project / path
            lines = file.read_text(encoding="utf-8").splitlines() if file.is_file() else []
            assert 1 <= line <= len(lines), f"{location} is no line of a project file"
            named = re.findall(r"'([^']+)'", finding["message"])
            entry = _yaml_entry(lines, line - 1)
            assert not named or any(
                re.search(rf"\bname:\s*['\"]?{re.escape(n)}['\"]?\s*$", entry, re.M) for n in named
            ), f"{location} is not the entry of {named}: {entry!r}"

    def test_every_finding_has_a_suggestion(self, rule_project: Path, rule_codes: Sequence[str]) -> None:
        for finding in self._findings(rule_project, rule_codes):
            assert (finding.get("suggestion") or "").strip(), f"no suggestion: {finding}"

    def test_no_secret_reaches_the_output(
        self, rule_project: Path, rule_codes: Sequence[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("STREAMT_CONTRACT_SECRET", self.SECRET)
        monkeypatch.setenv("STREAMT_LOG_LEVEL", "DEBUG")  # the logs are output too
        project = _with_kafka_password(rule_project, tmp_path / "with-secret")
        self._findings(project, rule_codes)
        outcome = run_cli("validate", "--project-dir", project)
        text = run_cli_text("validate", "--project-dir", project)
        _assert_secret_free(self.SECRET, outcome.stdout, outcome.stderr, text.stdout, text.stderr)


def _yaml_entry(lines: list[str], index: int) -> str:
    """The YAML list item that starts at ``lines[index]``, up to the next item of its level."""
    first = lines[index]
    indent = len(first) - len(first.lstrip(" -"))
    block = [first]
    for text in lines[index + 1 :]:
        depth = len(text) - len(text.lstrip(" "))
        if text.strip() and (depth < indent or (depth <= indent and text.lstrip().startswith("- "))):
            break
        block.append(text)
    return "\n".join(block)


def _with_kafka_password(project: Path, copy: Path) -> Path:
    """A copy of ``project`` whose Kafka runtime logs in with the password ``${STREAMT_CONTRACT_SECRET}``."""
    shutil.copytree(project, copy)
    document = YAML(typ="safe", pure=True).load((copy / "stream_project.yml").read_text(encoding="utf-8")) or {}
    kafka = document.setdefault("runtime", {}).setdefault("kafka", {})
    kafka.setdefault("bootstrap_servers", "broker.example:9092")
    kafka.update(
        security_protocol="SASL_SSL",
        sasl_mechanism="PLAIN",
        sasl_username="contract",
        sasl_password="${STREAMT_CONTRACT_SECRET}",
    )
    return write_project(copy, {"stream_project.yml": document})
