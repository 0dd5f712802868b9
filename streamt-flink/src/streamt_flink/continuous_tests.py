"""Continuous tests in ``streamt test``: the live state of each ``test_<name>`` job and its violations.

The job is deployed by ``plan`` / ``apply`` like any Flink job (``continuous.compile_test``); this
runner only reads. Per test it finds the job by its ``pipeline.name`` in one ``/jobs/overview`` per
cluster and maps the state: RUNNING -> ``running``; CREATED, INITIALIZING, RESTARTING, RECONCILING ->
``deployed``; FAILED, CANCELED, FINISHED -> ``failed``. A job that is not listed is an error (apply has
not deployed it). Violations come from a bounded read of the test's own failures topic
(``_streamt_test_failures.<project>.<env>.<test>``, created by apply with the job) since the job's
start time (``violations``): each one counts against the assertion kind and column it names.
Assertion kinds the compiler does not turn into SQL yet are reported as skipped, with that reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from streamt.sdk import (
    DEPLOYED,
    ERROR,
    FAILED,
    MAX_EXAMPLES,
    PASSED,
    RUNNING,
    SKIPPED,
    AssertionResult,
    RunnerReport,
    StreamtError,
    TestCase,
    assertion_columns,
)

from streamt_flink.continuous import compile_test
from streamt_flink.identity import pipeline_of
from streamt_flink.planning import rest_client
from streamt_flink.rest import ACTIVE, LiveJob
from streamt_flink.violations import Violation, read_violations

_STATE = {"RUNNING": RUNNING, "FAILED": FAILED, "CANCELED": FAILED, "FINISHED": FAILED}


@attrs.define
class ContinuousTestRunner:
    runtime: Any
    type = "continuous"

    def run(self, cases: Sequence[TestCase]) -> Mapping[str, RunnerReport]:
        jobs: dict[str, list[LiveJob]] = {}
        reports: dict[str, RunnerReport] = {}
        live: dict[str, tuple[TestCase, Any, LiveJob]] = {}
        for case in cases:
            artifact = compile_test(case.project, case.test)
            if artifact is None:
                reason = "no assertion of this test compiles to Flink SQL yet"
                reports[case.name] = _skipped(case, reason)
                continue
            try:
                client = rest_client(self.runtime, artifact)
                if client.url not in jobs:
                    jobs[client.url] = client.jobs()
            except StreamtError as exc:
                reports[case.name] = RunnerReport(error=exc.diagnostics[0])
                continue
            job = _current(jobs[client.url], pipeline_of(artifact))
            if job is None:
                reason = f"job {artifact.identity} is not deployed: run `streamt plan` and `streamt apply`"
                reports[case.name] = RunnerReport(
                    assertions=tuple(
                        AssertionResult(a.index, a.kind, a.label, ERROR, reason=reason) for a in case.assertions
                    )
                )
                continue
            live[case.name] = (case, artifact, job)
        for name, (case, artifact, job) in live.items():  # each test reads its own failures topic
            try:
                found = read_violations(self.runtime, artifact.spec["failures_topic"], job.start_time, {name})
            except StreamtError as exc:
                reports[name] = RunnerReport(error=exc.diagnostics[0])
                continue
            mine = [v for v in found.get(name, ()) if v.timestamp >= job.start_time]
            reports[name] = _report(case, artifact, job, mine)
        return reports


def _current(jobs: list[LiveJob], pipeline: str) -> LiveJob | None:
    """The active job of that name, else the most recent one (its failure is the truth)."""
    named = [j for j in jobs if j.name == pipeline]
    active = [j for j in named if j.state in ACTIVE or j.state == "RESTARTING"]
    pool = active or named
    return max(pool, key=lambda j: j.start_time) if pool else None


def _skipped(case: TestCase, reason: str) -> RunnerReport:
    return RunnerReport(
        assertions=tuple(AssertionResult(a.index, a.kind, a.label, SKIPPED, reason=reason) for a in case.assertions)
    )


def _report(case: TestCase, artifact: Any, job: LiveJob, violations: list[Violation]) -> RunnerReport:
    not_compiled = set(artifact.spec.get("skipped") or ())
    results = []
    for assertion in case.assertions:
        if assertion.kind in not_compiled:
            reason = f"{assertion.kind} is not compiled to Flink SQL yet"
            results.append(AssertionResult(assertion.index, assertion.kind, assertion.label, SKIPPED, reason=reason))
            continue
        columns = set(assertion_columns(assertion))
        hits = [v for v in violations if v.assertion == assertion.kind and (not columns or v.column in columns)]
        examples = tuple(_example(v, case) for v in hits[:MAX_EXAMPLES])
        status = FAILED if hits else PASSED
        results.append(
            AssertionResult(assertion.index, assertion.kind, assertion.label, status, None, len(hits), examples)
        )
    state = _STATE.get(job.state, DEPLOYED)
    details = {"job": artifact.identity, "job_id": job.job_id, "job_state": job.state, "since": job.start_time}
    details["violations_topic"] = artifact.spec["failures_topic"]
    return RunnerReport(assertions=tuple(results), state=state, details=details)


def _example(violation: Violation, case: TestCase) -> dict[str, Any]:
    out: dict[str, Any] = {"partition": violation.partition, "offset": violation.offset}
    if violation.column:
        out["column"] = violation.column
        if violation.column not in case.target.sensitive and violation.observed is not None:
            out["value"] = violation.observed
    return out
