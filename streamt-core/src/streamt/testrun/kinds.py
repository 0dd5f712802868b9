"""Which assertion kinds each test type evaluates (dsl.md section 11, the assertion table).

A kind marked "–" for a type is accepted by ``validate`` and reported by ``streamt test`` as
skipped with the reason below; an unknown kind is skipped too (validation already gave the
``UNKNOWN_ASSERTION`` notice). Runners only ever see the kinds listed for their type.
"""

from __future__ import annotations

from typing import Any

from streamt.testrun.model import SKIPPED, Assertion, AssertionResult

_SAMPLE = ("not_null", "accepted_values", "range", "unique_key", "unique", "custom_sql", "expression")
_CONTINUOUS = (
    *_SAMPLE, "accepted_types", "max_lag", "throughput", "distribution", "foreign_key",
)  # fmt: skip
EVALUATED: dict[str, frozenset[str]] = {
    "schema": frozenset({"not_null", "accepted_types"}),
    "sample": frozenset(_SAMPLE),
    "continuous": frozenset(_CONTINUOUS),
}
KNOWN = EVALUATED["continuous"]
TYPE_ORDER = ("schema", "sample", "continuous")


def assertions_of(test: Any) -> tuple[Assertion, ...]:
    """Every ``{kind: body}`` entry in declaration order; a non-mapping body becomes ``{}``."""
    out: list[Assertion] = []
    for index, entry in enumerate(test.assertions):
        if not isinstance(entry, dict):
            continue
        for kind, body in entry.items():
            out.append(Assertion(index=index, kind=str(kind), body=body if isinstance(body, dict) else {}))
    return tuple(out)


def split(test_type: str, assertions: tuple[Assertion, ...]) -> tuple[tuple[Assertion, ...], list[AssertionResult]]:
    """``(evaluated, skipped results)`` for a test of ``test_type``."""
    evaluated: list[Assertion] = []
    skipped: list[AssertionResult] = []
    for assertion in assertions:
        if assertion.kind not in KNOWN:
            reason = f"unknown assertion kind '{assertion.kind}'"
        elif assertion.kind not in EVALUATED.get(test_type, frozenset()):
            reason = f"{assertion.kind} is not evaluated by {test_type} tests (dsl.md section 11)"
        else:
            evaluated.append(assertion)
            continue
        skipped.append(AssertionResult(assertion.index, assertion.kind, assertion.label, SKIPPED, reason=reason))
    return tuple(evaluated), skipped
