"""The values ``streamt test`` passes between core and runners, and reports.

Core builds one ``TestCase`` per selected test; a runner answers each with a
``RunnerReport``; core turns that into a ``TestResult`` (severity, actions,
timing) that the renderers and the JSON envelope show. Every value here is
plain data: runners in plugins build them without knowing how they are shown.
"""

from __future__ import annotations

from typing import Any

import attrs

from streamt.errors import Diagnostic

# Assertion and test outcomes.
PASSED = "passed"
FAILED = "failed"
WARNING = "warning"  # failed, but the test's on_failure.severity is warning
SKIPPED = "skipped"
ERROR = "error"  # the runner could not evaluate it (unreachable service, undecodable schema ...)
# Continuous tests are long-running jobs: their state comes from the live job.
DEPLOYED = "deployed"
RUNNING = "running"

MAX_EXAMPLES = 5


@attrs.frozen
class Assertion:
    """One entry of a test's ``assertions`` list.

    * ``index`` — its position in the list; ``kind`` — the assertion kind (``not_null`` ...).
    * ``body`` — its arguments as written (a mapping; ``{}`` when it had none).
    """

    index: int
    kind: str
    body: dict[str, Any]

    @property
    def label(self) -> str:
        """``not_null(customer_id, amount)``: the kind and the columns it checks, for people."""
        columns = assertion_columns(self)
        return f"{self.kind}({', '.join(columns)})" if columns else self.kind


def assertion_columns(assertion: Assertion) -> tuple[str, ...]:
    """The columns an assertion checks, as its body names them (``columns``, ``column`` ...)."""
    body = assertion.body
    if assertion.kind in ("not_null", "unique"):
        return tuple(str(c) for c in body.get("columns") or ())
    if assertion.kind == "unique_key":
        key = body.get("key")
        return tuple(str(k) for k in key) if isinstance(key, list) else ((str(key),) if key else ())
    if assertion.kind == "accepted_types":
        types = body["types"] if isinstance(body.get("types"), dict) else body
        return tuple(str(c) for c in types)
    column = body.get("column")
    return (str(column),) if column else ()


@attrs.frozen
class Target:
    """What a test reads: the model or source, its topic, declared columns and registry subject.

    * ``kind`` — ``model`` or ``source``; ``name`` — its declaration name; ``topic`` — its topic.
    * ``columns`` — its declared ``Column`` objects; ``key_column`` — the record key column, if any.
    * ``subject``, ``schema_format`` — its registry subject and format, if any.
    * ``sensitive`` — the columns whose values never appear in a failure example
      (classified ``sensitive``/``highly_sensitive`` or masked by a policy).
    """

    kind: str  # "model" or "source"
    name: str
    topic: str
    columns: tuple[Any, ...] = ()  # streamt.project.model.Column
    subject: str | None = None
    schema_format: str | None = None
    key_column: str | None = None
    sensitive: frozenset[str] = frozenset()


@attrs.frozen
class TestCase:
    """One selected test as a runner receives it.

    * ``name``, ``type`` — the test's name and type (``schema``, ``sample``, ``continuous``).
    * ``target`` — the model or source it reads (``Target``).
    * ``assertions`` — only the ``Assertion`` entries its type evaluates; core reports the rest as skipped.
    * ``sample_size`` — the effective ``sample_size`` (test, else ``defaults.tests``, else 100).
    * ``test`` — the ``streamt.project.model.Test`` itself, for runner-specific fields (``flink_cluster``).
    * ``project`` — the loaded project, for runners that compile the test (continuous jobs).
    """

    __test__ = False  # not a pytest test class

    name: str
    type: str
    target: Target
    assertions: tuple[Assertion, ...]
    sample_size: int
    test: Any  # streamt.project.model.Test, for runner-specific fields (flink_cluster)
    project: Any = None  # the loaded project, for runners that compile the test (continuous jobs)


@attrs.frozen
class AssertionResult:
    """The outcome of one assertion.

    * ``index`` — its position in the test's ``assertions`` list; ``kind`` — ``not_null`` ...;
      ``description`` — the label people see (``not_null(customer_id)``).
    * ``status`` — ``passed``, ``failed``, ``skipped`` or ``error``.
    * ``checked`` — how many records (or columns, for schema tests) it looked at; ``failed`` — how
      many violated it.
    * ``examples`` — at most five ``{partition, offset, key?, column?, value?}`` maps, never a value
      of a sensitive column.
    * ``reason`` — why it was skipped or could not be evaluated.
    """

    index: int
    kind: str
    description: str
    status: str
    checked: int | None = None
    failed: int | None = None
    examples: tuple[dict[str, Any], ...] = ()
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The assertion's result as JSON data (``streamt test -o json``)."""
        return {
            "index": self.index,
            "assertion": self.kind,
            "description": self.description,
            "status": self.status,
            "checked": self.checked,
            "failed": self.failed,
            "examples": [dict(e) for e in self.examples],
            "reason": self.reason,
        }


@attrs.frozen
class RunnerReport:
    """A runner's answer for one test case.

    * ``assertions`` — one ``AssertionResult`` per evaluated assertion.
    * ``messages`` — the number of records a sample test read.
    * ``state`` — the live state of a continuous test's job (``deployed``, ``running`` or ``failed``).
    * ``error`` — set when the test could not be evaluated at all (a structured ``Diagnostic``).
    * ``details`` — runner facts shown in ``-o json`` (topic, job id ...); ``duration_ms`` here
      replaces core's share of the batch time.
    """

    assertions: tuple[AssertionResult, ...] = ()
    messages: int | None = None
    state: str | None = None
    error: Diagnostic | None = None
    details: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class TestResult:
    """One test as ``streamt test`` reports it."""

    __test__ = False

    name: str
    model: str
    type: str
    status: str
    severity: str
    assertions: tuple[AssertionResult, ...]
    messages: int | None
    state: str | None
    duration_ms: int
    actions: tuple[dict[str, Any], ...] = ()
    error: Diagnostic | None = None
    details: dict[str, Any] = attrs.field(factory=dict)

    @property
    def blocks(self) -> bool:
        """Does this result fail the command (exit 1)?"""
        if self.status in (FAILED, ERROR):
            return True
        return self.status == WARNING and any(a["action"] == "block_deploy" for a in self.actions)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "type": self.type,
            "status": self.status,
            "severity": self.severity,
            "messages": self.messages,
            "state": self.state,
            "duration_ms": self.duration_ms,
            "assertions": [a.to_json() for a in self.assertions],
            "actions": [dict(a) for a in self.actions],
            "error": self.error.to_json() if self.error else None,
            **({"details": dict(self.details)} if self.details else {}),
        }
