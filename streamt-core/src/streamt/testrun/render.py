"""The text of ``streamt test``: the reference's sections, marks and results line.

Durations are left out of the text so the same results always give the same bytes
(``-o json`` carries them).
"""

from __future__ import annotations

from collections.abc import Sequence

from streamt.testrun.kinds import TYPE_ORDER
from streamt.testrun.model import (
    DEPLOYED,
    ERROR,
    FAILED,
    PASSED,
    RUNNING,
    SKIPPED,
    WARNING,
    AssertionResult,
    TestResult,
)

_MARK = {PASSED: "✓", FAILED: "✗", ERROR: "✗", WARNING: "⚠", SKIPPED: "○", DEPLOYED: "○", RUNNING: "○"}
_TITLE = {"schema": "Schema Tests", "sample": "Sample Tests", "continuous": "Continuous Tests"}


def summary(results: Sequence[TestResult]) -> dict[str, int]:
    def count(*statuses: str) -> int:
        return sum(1 for r in results if r.status in statuses)

    return {
        "passed": count(PASSED),
        "failed": count(FAILED, ERROR),
        "deployed": count(DEPLOYED, RUNNING),
        "warnings": count(WARNING),
        "skipped": count(SKIPPED),
    }


def results_line(counts: dict[str, int]) -> str:
    line = f"Results: {counts['passed']} passed, {counts['failed']} failed, {counts['deployed']} deployed"
    if counts["warnings"]:
        line += f", {counts['warnings']} warning{'s' if counts['warnings'] != 1 else ''}"
    if counts["skipped"]:
        line += f", {counts['skipped']} skipped"
    return line


def tests_text(results: Sequence[TestResult]) -> str:
    lines = ["Running tests...", ""]
    if not results:
        lines += ["No tests selected.", ""]
    for test_type in TYPE_ORDER:
        group = [r for r in results if r.type == test_type]
        if not group:
            continue
        lines.append(f"{_TITLE[test_type]}:")
        for result in group:
            lines.append(f"  {_MARK.get(result.status, '?')} {result.name} ({_headline(result)})")
            lines += _details(result)
        lines.append("")
    lines.append(results_line(summary(results)))
    return "\n".join(lines)


def _headline(result: TestResult) -> str:
    if result.status == ERROR and result.error is not None:
        return f"error: {result.error.code.code}"
    if result.type == "sample" and result.messages is not None:
        text = f"{result.messages} messages"
    elif result.type == "continuous" and result.state:
        text = result.state
    elif result.status == SKIPPED:
        text = "skipped"
    else:
        count = len(result.assertions)
        text = f"{count} assertion{'s' if count != 1 else ''}"
    return f"{text}, warning" if result.status == WARNING else text


def _details(result: TestResult) -> list[str]:
    out: list[str] = []
    if result.error is not None:
        out.append(f"      {result.error.message}")
        if result.error.suggestion:
            out.append(f"      → {result.error.suggestion}")
    for assertion in result.assertions:
        if assertion.status in (FAILED, ERROR):
            out.append(f"      ✗ {assertion.description}: {_failure(assertion)}")
        elif assertion.status == SKIPPED:
            out.append(f"      ○ {assertion.description}: skipped, {assertion.reason}")
    for action in result.actions:
        if action["executed"]:
            out.append(f"      → {action['action']}: {action['effect']}")
        else:
            out.append(f"      → {action['action']}: {action['reason']}")
    return out


def _failure(assertion: AssertionResult) -> str:
    if assertion.status == ERROR:
        return assertion.reason or "could not be evaluated"
    text = f"{assertion.failed} of {assertion.checked} failed" if assertion.checked is not None else "failed"
    if assertion.reason:
        text += f" ({assertion.reason})"
    examples = [_example(e) for e in assertion.examples]
    return f"{text}; e.g. {', '.join(examples)}" if examples else text


def _example(example: dict[str, object]) -> str:
    if "column" in example and "problem" in example:  # schema tests: a column and what is wrong with it
        return f"{example['column']} {example['problem']}"
    parts = []
    if "partition" in example:
        parts.append(f"partition {example['partition']} offset {example['offset']}")
    for key in ("key", "column", "value", "problem"):
        if key in example:
            parts.append(f"{key}={example[key]}")
    return " ".join(parts) or "?"
