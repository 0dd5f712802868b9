"""Run the selected tests through their runners and turn reports into results.

Core owns everything around the runners: which assertions a type evaluates
(``kinds``), what a missing or conflicting runner means, severity, the
``on_failure`` actions and timing. A runner that fails as a whole (an
unreachable broker) makes each of its tests an ``error`` result carrying the
structured diagnostic; no exception escapes as a traceback.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.kinds import TEST_TYPE, known
from streamt.plugins import Plugins, get_plugins
from streamt.progress import STARTED, Progress, Silent, Step
from streamt.testrun.kinds import TYPE_ORDER, assertions_of, split
from streamt.testrun.model import (
    DEPLOYED,
    ERROR,
    FAILED,
    PASSED,
    RUNNING,
    SKIPPED,
    WARNING,
    AssertionResult,
    RunnerReport,
    TestCase,
    TestResult,
)
from streamt.testrun.targets import target_of


def runners_by_type(batches: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """``{type: runner}``; a type claimed by two plugins maps to the list of their names."""
    table: dict[str, Any] = {}
    owners: dict[str, list[str]] = {}
    for plugin, batch in batches:
        for runner in batch or ():
            owners.setdefault(runner.type, []).append(plugin)
            table.setdefault(runner.type, runner)
    for test_type, names in owners.items():
        if len(names) > 1:
            table[test_type] = sorted(names)
    return table


def case_of(project: Any, test: Any) -> tuple[TestCase, list[AssertionResult]] | None:
    target = target_of(project, test.model)
    if target is None:
        return None
    evaluated, skipped = split(test.type, assertions_of(test))
    size = test.sample_size or project.defaults.sample_size
    return TestCase(test.name, test.type, target, evaluated, size, test, project), skipped


def run_tests(
    project: Any,
    tests: Sequence[Any],
    runners: Mapping[str, Any],
    clock: Callable[[], float] = time.monotonic,
    progress: Progress | None = None,
    plugins: Plugins | None = None,
) -> tuple[TestResult, ...]:
    """Each test's result, in the order given; ``progress`` hears each runner batch start and each test finish.

    ``plugins`` (the command's) names the extra to install for a test type no runner serves.
    """
    progress = progress or Silent()
    results: dict[str, TestResult] = {}
    for test_type in TYPE_ORDER:
        prepared = [(t, case_of(project, t)) for t in tests if t.type == test_type]
        pending: list[tuple[Any, TestCase, list[AssertionResult]]] = []
        for test, prepared_case in prepared:
            if prepared_case is None:  # validation reports E107 first; kept for a project built in code
                error = Diagnostic(
                    Codes.E107_TEST_MODEL_NOT_FOUND,
                    f"Test '{test.name}' names '{test.model}', which is no model or source.",
                    "Fix the test's model.",
                )
                results[test.name] = _result(test, RunnerReport(error=error), [], 0)
                continue
            case, skipped = prepared_case
            if not case.assertions:
                results[test.name] = _result(test, RunnerReport(), skipped, 0)
                continue
            pending.append((test, case, skipped))
        if not pending:
            continue
        steps = {test.name: Step("test", test_type, test.name) for test, _, _ in pending}
        progress.event(STARTED, list(steps.values()))
        runner = runners.get(test_type)
        reports, elapsed_ms = _run_type(test_type, runner, [c for _, c, _ in pending], clock, plugins)
        share = elapsed_ms // len(pending)
        for test, case, skipped in pending:
            report = reports.get(case.name) or RunnerReport(
                error=Diagnostic(
                    Codes.E999_INTERNAL_ERROR,
                    f"The {test_type} runner returned no result for test '{case.name}'.",
                    "Report this to the plugin's authors.",
                )
            )
            duration = report.details.get("duration_ms", share)
            results[test.name] = _result(test, report, skipped, int(duration))
            progress.event(results[test.name].status, [steps[test.name]])
    return tuple(results[t.name] for t in tests if t.name in results)


def _run_type(
    test_type: str, runner: Any, cases: list[TestCase], clock: Callable[[], float], plugins: Plugins | None
) -> tuple[Mapping[str, RunnerReport], int]:
    if runner is None or isinstance(runner, list):
        if runner is None:
            error = Diagnostic(
                Codes.E903_PLUGIN_REQUIRED,
                f"No installed plugin runs {test_type} tests.",
                f"pip install 'streamt[{_extra_of(test_type, plugins or get_plugins())}]'",
            )
        else:
            error = Diagnostic(
                Codes.E903_PLUGIN_REQUIRED,
                f"Plugins {', '.join(runner)} all claim {test_type} tests; none was run.",
                "Disable all but one with STREAMT_DISABLED_PLUGINS.",
            )
        return {c.name: RunnerReport(error=error) for c in cases}, 0
    started = clock()
    try:
        reports = runner.run(cases)
    except StreamtError as exc:
        reports = {c.name: RunnerReport(error=exc.diagnostics[0]) for c in cases}
    return reports, int((clock() - started) * 1000)


def _extra_of(test_type: str, plugins: Plugins) -> str:
    """The extra that installs ``test_type``'s runner, from the known-kinds catalog (else the type)."""
    entry = known(plugins, TEST_TYPE).get(test_type)
    return entry.extra if entry is not None and entry.extra else test_type


def _result(test: Any, report: RunnerReport, skipped: list[AssertionResult], duration_ms: int) -> TestResult:
    severity = test.on_failure.severity if test.on_failure else "error"
    assertions = tuple(sorted([*report.assertions, *skipped], key=lambda a: a.index))
    status = _status(report, assertions, severity)
    actions = _actions(test) if status in (FAILED, WARNING) else ()
    details = {k: v for k, v in report.details.items() if k != "duration_ms"}
    return TestResult(
        name=test.name,
        model=test.model,
        type=test.type,
        status=status,
        severity=severity,
        assertions=assertions,
        messages=report.messages,
        state=report.state,
        duration_ms=duration_ms,
        actions=actions,
        error=report.error,
        details=details,
    )


def _status(report: RunnerReport, assertions: tuple[AssertionResult, ...], severity: str) -> str:
    if report.error is not None or any(a.status == ERROR for a in assertions):
        return ERROR
    if report.state == FAILED or any(a.status == FAILED for a in assertions):
        return WARNING if severity == "warning" else FAILED
    if report.state in (DEPLOYED, RUNNING):
        return report.state
    if assertions and all(a.status == SKIPPED for a in assertions):
        return SKIPPED
    return PASSED if assertions else SKIPPED


def _actions(test: Any) -> tuple[dict[str, Any], ...]:
    """What each ``on_failure`` action did: only ``block_deploy`` is executed (by the exit status)."""
    out: list[dict[str, Any]] = []
    for entry in test.on_failure.actions if test.on_failure else ():
        for name in entry if isinstance(entry, dict) else (entry,):
            if name == "block_deploy":
                out.append({"action": "block_deploy", "executed": True, "effect": "streamt test exits 1"})
            else:
                # Alerts, DLQ routing and pausing are declared but never run here; saying so is the contract.
                out.append({"action": str(name), "executed": False, "reason": "not executed by streamt test"})
    return tuple(out)
