"""The contract a test runner plugin implements (hook ``streamt_test_runners``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from streamt.testrun.model import RunnerReport, TestCase


@runtime_checkable
class TestRunner(Protocol):
    """Evaluates every selected test of one type.

    ``run`` gets all cases of ``type`` at once and returns a report per case
    name; a case missing from the answer is reported as an error, never as a
    pass. Runners only read live systems.
    """

    @property
    def type(self) -> str:
        """``schema``, ``sample`` or ``continuous``."""
        ...

    def run(self, cases: Sequence[TestCase]) -> Mapping[str, RunnerReport]:
        """One ``RunnerReport`` per ``TestCase.name``."""
        ...
