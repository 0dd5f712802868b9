"""Deploying Flink SQL jobs: submit new jobs through the SQL Gateway, nothing else.

Only ``create`` exists: an update of an existing job is a safety blocker (``flink_job_update``) and
never reaches a deployer, because the only update path is cancel-and-resubmit, which is not
savepoint-safe. One job per batch (``max_batch = 1``).

A create opens one SQL Gateway session, runs the job's ``SET`` and ``CREATE TABLE`` statements
(session-scoped: nothing outside the session changes), submits the ``INSERT``, reads back the job
id and waits (bounded) until ``GET /jobs/overview`` lists that job id in a non-terminal state.
Outcomes:

* ``failed`` — nothing was submitted: no ``sql_gateway_url`` (``E206``), a missing ``${VAR}``
  (``E502``), an unreachable gateway or a refused ``SET``/``CREATE TABLE``, or a refused
  ``INSERT`` after which the cluster lists no new job with the name;
* ``unknown`` — the ``INSERT`` was sent but no job id came back, or the job never showed up /
  showed up terminal, or the answer was lost: the job may exist;
* ``done`` — job id returned and the job is listed.

Secrets: the compiled DDL keeps ``${VAR}`` placeholders (the SASL password in the JAAS line). They
are resolved from the process environment in memory, just before submission, and never written to
plans, state, output or logs; an error names the variable, never a value.

Rollback of a job this run created cancels that exact job id (``PATCH /jobs/<id>?mode=cancel``).
No savepoint is lost: the job was submitted moments earlier by this run, so there is no state worth
keeping and no other run's job is touched.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

import attrs
from streamt.apply.outcome import FAILED, OK, UNKNOWN, Outcome
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.plan.model import CREATE, Action

from streamt_flink.placeholders import resolve_placeholders
from streamt_flink.planning import KINDS, gateway_url, job_name, rest_client
from streamt_flink.rest import TERMINAL

CONFIRM_SECONDS = 30.0


def _code(exc: StreamtError) -> str:
    return exc.diagnostics[0].code.code


def split(statements: list[str]) -> tuple[list[str], str]:
    """``(SET and CREATE statements, the INSERT)``; the compiler writes exactly one INSERT, last."""
    *setup, insert = statements
    if not insert.lstrip().upper().startswith("INSERT") or any(s.lstrip().upper().startswith("INSERT") for s in setup):
        raise ValueError("a Flink job artifact must end with its only INSERT statement")
    return setup, insert


@attrs.define
class FlinkJobDeployer:
    runtime: Any
    confirm_seconds: float = CONFIRM_SECONDS
    # identity -> job id of the jobs this deployer submitted (what rollback may cancel).
    submitted: dict[str, str] = attrs.field(factory=dict)
    kinds = KINDS
    max_batch = 1

    def apply(self, action: str, pairs: list[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        if action != CREATE:
            raise ValueError(f"the Flink job deployer cannot {action}: existing jobs are never resubmitted")
        return {artifact.identity: self._create(artifact) for _, artifact in pairs}

    def _create(self, artifact: Artifact) -> Outcome:
        from streamt_flink.gateway_client import SqlGatewayClient

        try:
            url = gateway_url(self.runtime, artifact)
            rest = rest_client(self.runtime, artifact)
            setup, insert = split(list(artifact.spec["statements"]))
            # Placeholders live in the DDL options only; the user's query text is sent as written.
            setup = [resolve_placeholders(s, os.environ) for s in setup]
            before = {j.job_id for j in rest.jobs() if j.name == job_name(artifact)}
        except StreamtError as exc:
            return Outcome(FAILED, _code(exc))
        gateway = SqlGatewayClient(url)
        try:
            session = gateway.open_session(f"streamt-apply-{artifact.identity}")
        except StreamtError as exc:
            return Outcome(FAILED, _code(exc))
        try:
            try:
                for index, statement in enumerate(setup):
                    gateway.execute(session, statement, f"statement {index + 1} of job '{artifact.identity}'")
            except StreamtError as exc:
                return Outcome(FAILED, _code(exc))  # session-scoped statements only: no job was submitted
            try:
                result = gateway.execute(session, insert, f"the INSERT of job '{artifact.identity}'")
            except StreamtError as exc:
                return self._after_refusal(rest, artifact, before, exc)
            except Exception as exc:
                return Outcome(UNKNOWN, type(exc).__name__)
            job_id = result.job_id or (str(result.rows[0][0]) if result.rows and result.rows[0] else None)
            if not job_id:
                return Outcome(UNKNOWN, "NoJobId")
            self.submitted[artifact.identity] = job_id
            return self._confirm(rest, job_id)
        finally:
            # The gateway expires idle sessions; a submitted job keeps running either way.
            with contextlib.suppress(StreamtError):
                gateway.close_session(session)

    def _after_refusal(self, rest: Any, artifact: Artifact, before: set[str], exc: StreamtError) -> Outcome:
        """A refused INSERT is ``failed`` only when the cluster shows no new job with the name."""
        if _code(exc) != Codes.E403_FLINK_SQL_ERROR.code:
            return Outcome(UNKNOWN, _code(exc))  # no answer: the submission may have happened
        try:
            after = {j.job_id for j in rest.jobs() if j.name == job_name(artifact)}
        except StreamtError:
            return Outcome(UNKNOWN, _code(exc))
        return Outcome(FAILED if after <= before else UNKNOWN, _code(exc))

    def _confirm(self, rest: Any, job_id: str) -> Outcome:
        deadline = time.monotonic() + self.confirm_seconds
        state: str | None = None
        while True:
            try:
                state = rest.job_state(job_id)
            except StreamtError:
                state = None
            if state is not None:
                return OK if state not in TERMINAL else Outcome(UNKNOWN, f"Job{state.title()}")
            if time.monotonic() > deadline:
                return Outcome(UNKNOWN, "JobNotListed")
            time.sleep(0.5)

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
        except StreamtError:
            return False
        return False
