"""``streamt test``: selection, ordering, the result model and rendering; runners come from plugins.

Plugins supply a ``TestRunner`` per test type through the ``streamt_test_runners``
hook (``schema`` and ``sample`` from streamt-kafka, ``continuous`` from
streamt-flink). Core decides which tests run (``selection``), which assertion kinds a
type evaluates (``kinds``), what each result means (``execute``) and how it is shown
(``render``, ``coverage``).
"""

from __future__ import annotations

from streamt.testrun.model import (
    DEPLOYED,
    ERROR,
    FAILED,
    MAX_EXAMPLES,
    PASSED,
    RUNNING,
    SKIPPED,
    WARNING,
    Assertion,
    AssertionResult,
    RunnerReport,
    Target,
    TestCase,
    TestResult,
    assertion_columns,
)
from streamt.testrun.protocol import TestRunner

__all__ = [
    "DEPLOYED",
    "ERROR",
    "FAILED",
    "MAX_EXAMPLES",
    "PASSED",
    "RUNNING",
    "SKIPPED",
    "WARNING",
    "Assertion",
    "AssertionResult",
    "RunnerReport",
    "Target",
    "TestCase",
    "TestResult",
    "TestRunner",
    "assertion_columns",
]
