"""Deploying Flink SQL jobs through the SQL Gateway: submit, resubmit, upgrade through a savepoint.

One job per batch (``max_batch = 1``). A submission opens one SQL Gateway session, runs the job's
``SET`` and ``CREATE TABLE`` statements (session-scoped: nothing outside the session changes), then
the ``INSERT``; the job id is read back and the job must be listed in a non-terminal state (bounded
wait). A submission that restores state also sets ``execution.savepoint.path`` (and
``execution.savepoint.ignore-unclaimed-state`` only when the model opts in) and must reach RUNNING.

``create`` submits a new job. ``update`` (planned only from a reviewed plan, see planning.py):

* ``resubmit`` — the job stopped (FAILED/CANCELED/FINISHED): submit the current SQL, restoring the
  retained savepoint/checkpoint the plan names, or from scratch (``--force``) when there is none;
* ``stateless`` — cancel the running job (exactly its id), then submit the new SQL from scratch;
* ``savepoint`` — stop the running job with a savepoint (``drain: false``), wait for the path
  (bounded), journal it, submit the new SQL from it. If the savepoint fails the job keeps running
  and nothing else is done (``failed``); if it does not finish in time the outcome is ``unknown``
  (the stop may still complete). If the new SQL is refused or its job does not come up, the old
  statements (from the plan) are resubmitted from the same savepoint.
* ``last-state`` — for a job that cannot take a savepoint (crash-looping) or whose model chose it:
  read its latest completed checkpoint and check that a cancel retains it, journal the path,
  cancel the job (exactly its id), journal the stopped job's last checkpoint, submit the new SQL
  from it; a refused resubmit is rolled back like ``savepoint``, from the same checkpoint.

Before each provider call that depends on it, the deployer journals what it learnt (``replacing``,
``savepoint`` or ``checkpoint``, ``submitted``, ``rolled_back_to``) into the durable progress, so that a crash leaves
the savepoint path and the job ids in the marker for reviewed recovery (recovery.py).

Outcomes: ``failed`` — nothing changed (no ``sql_gateway_url``, a missing ``${VAR}``, an unreachable
gateway, a refused ``SET``/``CREATE TABLE``, a refused ``INSERT`` after which no new job with the
name is listed, a failed savepoint; or a refused upgrade whose old SQL runs again from the same
savepoint); ``unknown`` — a submission or stop may have happened unseen; ``done`` — the job is
listed (RUNNING when it restored state), with the ownership-record attributes. A new job that is
already FAILED when first listed is ``done`` too: it was submitted and is known, and its runtime
failure is what ``status`` and the next plan (a reviewed resubmit) deal with.

Secrets: the compiled DDL keeps ``${VAR}`` placeholders (the SASL password in the JAAS line). They
are resolved from the process environment in memory, just before submission, and never written to
plans, state, output or logs; an error names the variable, never a value.

Rollback of a job this run created cancels that exact job id (``PATCH /jobs/<id>?mode=cancel``):
it was submitted moments earlier by this run, so there is no state worth keeping.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from streamt.sdk import (
    CREATE,
    DONE,
    FAILED,
    UNKNOWN,
    UPDATE,
    Action,
    Artifact,
    Codes,
    MaybeSent,
    Outcome,
    StreamtError,
)

from streamt_flink.ddl import set_statement
from streamt_flink.identity import pipeline_of, record_attributes
from streamt_flink.placeholders import project_variables, resolve_placeholders
from streamt_flink.planning import KINDS, LAST_STATE, RESUBMIT, SAVEPOINT, STATELESS, gateway_url, rest_client
from streamt_flink.rest import STATS_SETTLE_SECONDS, TERMINAL

CONFIRM_SECONDS = 30.0
RUNNING_SECONDS = 60.0
SAVEPOINT_SECONDS = 120.0
SAVEPOINT_PATH = "execution.savepoint.path"
IGNORE_UNCLAIMED = "execution.savepoint.ignore-unclaimed-state"

Journal = Callable[[str, dict[str, Any]], None]


def _code(exc: StreamtError) -> str:
    return exc.diagnostics[0].code.code


def split(statements: list[str]) -> tuple[list[str], str]:
    """``(SET and CREATE statements, the INSERT)``; the compiler writes exactly one INSERT, last."""
    *setup, insert = statements
    if not insert.lstrip().upper().startswith("INSERT") or any(s.lstrip().upper().startswith("INSERT") for s in setup):
        raise ValueError("a Flink job artifact must end with its only INSERT statement")
    return setup, insert


def restore_settings(path: str | None, ignore_unclaimed: bool) -> list[str]:
    """The ``SET``s that make the next ``INSERT`` restore ``path`` (none for a fresh start)."""
    if not path:
        return []
    settings = [set_statement(SAVEPOINT_PATH, path)]
    if ignore_unclaimed:
        settings.append(set_statement(IGNORE_UNCLAIMED, "true"))
    return settings


@attrs.frozen
class Submitted:
    outcome: Outcome
    job_id: str | None = None


def _no_journal(identity: str, evidence: dict[str, Any]) -> None:
    del identity, evidence


@attrs.define
class FlinkJobDeployer:
    runtime: Any
    confirm_seconds: float = CONFIRM_SECONDS
    running_seconds: float = RUNNING_SECONDS
    stats_settle_seconds: float = STATS_SETTLE_SECONDS
    # identity -> job id of the jobs this deployer submitted (what rollback may cancel).
    submitted: dict[str, str] = attrs.field(factory=dict)
    kinds = KINDS
    max_batch = 1
    writes_evidence = True

    def apply(
        self, action: str, pairs: Sequence[tuple[Action, Artifact]], journal: Journal = _no_journal
    ) -> dict[str, Outcome]:
        if action == CREATE:
            return {artifact.identity: self._create(artifact) for _, artifact in pairs}
        if action == UPDATE:
            return {artifact.identity: self._update(step, artifact, journal) for step, artifact in pairs}
        raise ValueError(f"the Flink job deployer cannot {action}")

    def _create(self, artifact: Artifact) -> Outcome:
        result = self._submit(artifact, list(artifact.spec["statements"]))
        if result.job_id is not None:
            self.submitted[artifact.identity] = result.job_id
        return self._with_record(result, artifact)

    def _update(self, action: Action, artifact: Artifact, journal: Journal) -> Outcome:
        upgrade = dict(action.evidence.get("upgrade") or {})
        mode = upgrade.get("mode")
        if mode == RESUBMIT:
            return self._resubmit(artifact, upgrade, journal)
        if mode == STATELESS:
            return self._stateless(artifact, upgrade, journal)
        if mode == SAVEPOINT:
            return self._savepoint(artifact, upgrade, journal)
        if mode == LAST_STATE:
            return self._last_state(artifact, upgrade, journal)
        return Outcome(FAILED, "UnsupportedUpdate")  # never reached from a plan: blockers stop it first

    def _resubmit(self, artifact: Artifact, upgrade: dict[str, Any], journal: Journal) -> Outcome:
        path = upgrade.get("restore_from")
        journal(artifact.identity, {"mode": RESUBMIT, "restore_from": path})
        result = self._submit(artifact, self._statements(artifact, path), running=bool(path))
        if result.job_id is not None:
            journal(artifact.identity, {"submitted": result.job_id})
        return self._with_record(result, artifact, savepoint=path)

    def _stateless(self, artifact: Artifact, upgrade: dict[str, Any], journal: Journal) -> Outcome:
        old = str(upgrade["job_id"])
        journal(artifact.identity, {"mode": STATELESS, "replacing": old})
        try:
            rest = rest_client(self.runtime, artifact)
        except StreamtError as exc:
            return Outcome(FAILED, _code(exc))
        refused = self._cancel(rest, old)
        if refused is not None:
            return refused
        journal(artifact.identity, {"cancelled": old})
        result = self._submit(artifact, list(artifact.spec["statements"]))
        if result.job_id is not None:
            journal(artifact.identity, {"submitted": result.job_id})
        return self._with_record(result, artifact)

    def _savepoint(self, artifact: Artifact, upgrade: dict[str, Any], journal: Journal) -> Outcome:
        old = str(upgrade["job_id"])
        journal(artifact.identity, {"mode": SAVEPOINT, "replacing": old})
        try:
            rest = rest_client(self.runtime, artifact)
            trigger = rest.stop_with_savepoint(old)
        except StreamtError as exc:  # never sent, or refused: the job keeps running as it was
            return Outcome(FAILED, _code(exc))
        except MaybeSent as exc:  # the stop may be under way: the job's own state will tell
            return Outcome(UNKNOWN, str(exc))
        journal(artifact.identity, {"savepoint_trigger": trigger})
        status, path = self._wait_savepoint(rest, old, trigger)
        if status == "FAILED":
            return Outcome(FAILED, "SavepointFailed")  # Flink keeps the job running
        if path is None:
            return Outcome(UNKNOWN, "SavepointTimeout")  # the stop may still complete: recovery decides
        journal(artifact.identity, {"savepoint": path})
        if self._wait_terminal(rest, old) is None:
            return Outcome(UNKNOWN, "JobNotStopped")
        return self._resubmit_from(artifact, upgrade, path, journal)

    def _last_state(self, artifact: Artifact, upgrade: dict[str, Any], journal: Journal) -> Outcome:
        """Cancel the job (it keeps its retained checkpoint), resubmit the new SQL from that checkpoint."""
        old = str(upgrade["job_id"])
        journal(artifact.identity, {"mode": LAST_STATE, "replacing": old})
        try:
            rest = rest_client(self.runtime, artifact)
            path = rest.restore_point(old) if rest.retains_on_cancel(old) else None
        except StreamtError as exc:
            return Outcome(FAILED, _code(exc))  # reads only: the job was not touched
        read_at = time.monotonic()
        if path is None:
            return Outcome(FAILED, "NoRetainedCheckpoint")
        journal(artifact.identity, {"checkpoint": path})  # durable before the cancel that depends on it
        refused = self._cancel(rest, old)
        if refused is not None:
            return refused
        # A checkpoint that completed after the first read subsumed it: the stopped job's last one
        # counts, read once Flink's checkpoint-statistics cache no longer holds the first answer.
        time.sleep(max(0.0, read_at + self.stats_settle_seconds - time.monotonic()))
        try:
            path = rest.restore_point(old) or path
        except StreamtError as exc:
            return Outcome(UNKNOWN, _code(exc))
        journal(artifact.identity, {"cancelled": old, "checkpoint": path})
        return self._resubmit_from(artifact, upgrade, path, journal)

    def _cancel(self, rest: Any, job_id: str) -> Outcome | None:
        """Cancel exactly ``job_id`` and wait until it is CANCELED (``None``), else the outcome."""
        try:
            rest.cancel(job_id)
        except StreamtError as exc:  # never sent, or refused: the old job was not touched
            return Outcome(FAILED, _code(exc))
        except MaybeSent as exc:
            return Outcome(UNKNOWN, str(exc))
        try:
            if self._wait_terminal(rest, job_id) != "CANCELED":
                return Outcome(UNKNOWN, "CancelNotConfirmed")
        except StreamtError as exc:
            return Outcome(UNKNOWN, _code(exc))
        return None

    def _resubmit_from(self, artifact: Artifact, upgrade: dict[str, Any], path: str, journal: Journal) -> Outcome:
        """Submit the new SQL restoring ``path``; a refusal resubmits the old SQL from the same path."""
        result = self._submit(artifact, self._statements(artifact, path), running=True)
        if result.outcome.ok:
            journal(artifact.identity, {"submitted": result.job_id})
            return self._with_record(result, artifact, savepoint=path)
        if result.outcome.status == UNKNOWN:
            return result.outcome
        return self._restore_previous(artifact, upgrade, path, result.outcome, journal)

    def _restore_previous(
        self, artifact: Artifact, upgrade: dict[str, Any], path: str, refused: Outcome, journal: Journal
    ) -> Outcome:
        """The new SQL was refused: resubmit the old statements from the same savepoint."""
        previous = list(upgrade.get("previous_statements") or ())
        if not previous:
            return Outcome(UNKNOWN, f"{refused.error}; NoPreviousStatements")
        journal(artifact.identity, {"rolling_back_from": path})
        restored = self._submit(artifact, self._statements(artifact, path, previous), running=True)
        if restored.job_id is not None:  # even unconfirmed (an old SQL that crash-loops again): recovery
            journal(artifact.identity, {"rolled_back_to": restored.job_id})  # must know it runs the old SQL
        if not restored.outcome.ok:
            return Outcome(UNKNOWN, f"{refused.error}; RollbackNotConfirmed")
        return Outcome(FAILED, refused.error)  # the old SQL runs again, from the savepoint it stopped at

    def _statements(self, artifact: Artifact, path: str | None, statements: list[str] | None = None) -> list[str]:
        setup, insert = split(list(statements or artifact.spec["statements"]))
        ignore = bool((artifact.spec.get("lifecycle") or {}).get("ignore_unclaimed_state"))
        return [*setup, *restore_settings(path, ignore), insert]

    def _with_record(self, result: Submitted, artifact: Artifact, **extra: Any) -> Outcome:
        if not result.outcome.ok:
            return result.outcome
        extra = {k: v for k, v in extra.items() if v}
        return Outcome(DONE, attributes=record_attributes(artifact, result.job_id, **extra))

    def _submit(self, artifact: Artifact, statements: list[str], running: bool = False) -> Submitted:
        from streamt_flink.gateway_client import SqlGatewayClient

        name = self._pipeline(statements) or pipeline_of(artifact)
        try:
            url = gateway_url(self.runtime, artifact)
            rest = rest_client(self.runtime, artifact)
            # `${VAR}` in the DDL options (the JAAS line) and in the query (a secret `{{ env() }}` is its
            # placeholder in compiled SQL): resolved in memory, never written.
            environ = project_variables(self.runtime)
            setup, insert = split([resolve_placeholders(s, environ) for s in statements])
            before = {j.job_id for j in rest.jobs() if j.name == name}
        except StreamtError as exc:
            return Submitted(Outcome(FAILED, _code(exc)))
        gateway = SqlGatewayClient(url)
        try:
            session = gateway.open_session(f"streamt-apply-{artifact.identity}")
        except StreamtError as exc:
            return Submitted(Outcome(FAILED, _code(exc)))
        except MaybeSent as exc:  # at most an idle session, which the gateway expires: no job
            return Submitted(Outcome(FAILED, str(exc)))
        try:
            try:
                for index, statement in enumerate(setup):
                    gateway.execute(session, statement, f"statement {index + 1} of job '{artifact.identity}'")
            except StreamtError as exc:
                return Submitted(Outcome(FAILED, _code(exc)))  # session-scoped statements only: no job
            except MaybeSent as exc:
                return Submitted(Outcome(FAILED, str(exc)))  # likewise: SET and CREATE start no job
            try:
                result = gateway.execute(session, insert, f"the INSERT of job '{artifact.identity}'")
            except StreamtError as exc:
                return Submitted(self._after_refusal(rest, name, before, exc))
            except MaybeSent as exc:  # the INSERT may have been submitted
                return Submitted(Outcome(UNKNOWN, str(exc)))
            except Exception as exc:
                return Submitted(Outcome(UNKNOWN, type(exc).__name__))
            job_id = result.job_id or (str(result.rows[0][0]) if result.rows and result.rows[0] else None)
            if not job_id:
                return Submitted(Outcome(UNKNOWN, "NoJobId"))
            return Submitted(self._confirm(rest, job_id, running), job_id)
        finally:
            # The gateway expires idle sessions; a submitted job keeps running either way.
            with contextlib.suppress(StreamtError, MaybeSent):
                gateway.close_session(session)

    @staticmethod
    def _pipeline(statements: list[str]) -> str | None:
        prefix = "SET 'pipeline.name' = '"
        for statement in statements:
            if statement.startswith(prefix) and statement.endswith("'"):
                return statement[len(prefix) : -1].replace("''", "'")
        return None

    @staticmethod
    def _after_refusal(rest: Any, name: str, before: set[str], exc: StreamtError) -> Outcome:
        """An INSERT that never reached the gateway is ``failed``; a refused one only when the
        cluster shows no new job with the name."""
        if _code(exc) == Codes.E406_CONNECTION_REFUSED.code:
            return Outcome(FAILED, _code(exc))  # provably never sent (MaybeSent otherwise)
        if _code(exc) != Codes.E403_FLINK_SQL_ERROR.code:
            return Outcome(UNKNOWN, _code(exc))
        try:
            after = {j.job_id for j in rest.jobs() if j.name == name}
        except StreamtError:
            return Outcome(UNKNOWN, _code(exc))
        return Outcome(FAILED if after <= before else UNKNOWN, _code(exc))

    def _confirm(self, rest: Any, job_id: str, running: bool) -> Outcome:
        """Listed and not terminal; with ``running``, RUNNING (a restore that fails ends FAILED)."""
        deadline = time.monotonic() + (self.running_seconds if running else self.confirm_seconds)
        while True:
            try:
                state = rest.job_state(job_id)
            except StreamtError:
                state = None
            if state in TERMINAL:
                # A job that restored state and failed is a refusal: nothing of it runs. A new job that
                # failed at once (its input topic does not exist yet) was submitted and is known: the
                # record keeps it, status shows it FAILED and the next plan offers a reviewed resubmit.
                return Outcome(FAILED, f"Job{str(state).title()}") if running else Outcome(DONE)
            if state is not None and (state == "RUNNING" or not running):
                return Outcome(DONE)
            if time.monotonic() > deadline:
                return Outcome(UNKNOWN, "JobNotListed" if state is None else "JobNotRunning")
            time.sleep(0.5)

    def _wait_savepoint(self, rest: Any, job_id: str, trigger: str) -> tuple[str, str | None]:
        deadline = time.monotonic() + self._savepoint_seconds()
        while time.monotonic() <= deadline:
            try:
                status, path = rest.savepoint_status(job_id, trigger)
            except StreamtError:
                status, path = "IN_PROGRESS", None
            if status != "IN_PROGRESS":
                return status, path
            time.sleep(0.5)
        return "IN_PROGRESS", None

    def _savepoint_seconds(self) -> float:
        # Test-only override, like STREAMT_TEST_KILL_AT_BOUNDARY: a savepoint that cannot finish in time.
        override = os.environ.get("STREAMT_TEST_FLINK_SAVEPOINT_SECONDS")
        return float(override) if override else SAVEPOINT_SECONDS

    def _wait_terminal(self, rest: Any, job_id: str) -> str | None:
        deadline = time.monotonic() + self.confirm_seconds
        while time.monotonic() < deadline:
            state = rest.job_state(job_id)
            if state in TERMINAL or state is None:
                return state
            time.sleep(0.5)
        return None

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Cancel the job this run submitted for ``artifact`` (its exact id); ``True`` once it is CANCELED."""
        job_id = self.submitted.get(artifact.identity)
        if action.action != CREATE or job_id is None:
            return False
        try:
            rest = rest_client(self.runtime, artifact)
            rest.cancel(job_id)
            deadline = time.monotonic() + self.confirm_seconds
            while time.monotonic() < deadline:
                if rest.job_state(job_id) == "CANCELED":
                    return True
                time.sleep(0.5)
        except (StreamtError, MaybeSent):
            return False
        return False
