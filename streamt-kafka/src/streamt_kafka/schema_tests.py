"""Schema tests (dsl.md §11): ``not_null`` and ``accepted_types`` against declared columns and the registry.

Offline first: declared columns decide unless the tested source has a registry subject and
``runtime.schema_registry`` is configured; then the latest registered Avro or JSON Schema is
checked too (a column must be non-optional there for ``not_null``, and of the accepted type).
Protobuf subjects are reported as not compared, with the reason, because their message layout
cannot be read without the descriptor set.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from streamt.sdk import (
    FAILED,
    MAX_EXAMPLES,
    PASSED,
    AssertionResult,
    RunnerReport,
    StreamtError,
    TestCase,
    canonical_type,
)

from streamt_kafka.schema_columns import columns_of


@attrs.frozen
class RegisteredSchema:
    """Top-level fields of the latest registered schema: their type and whether they may be null."""

    subject: str
    types: dict[str, str]
    optional: frozenset[str]


@attrs.define
class SchemaTestRunner:
    runtime: Any
    type = "schema"

    def run(self, cases: Sequence[TestCase]) -> Mapping[str, RunnerReport]:
        registered: dict[str, RegisteredSchema | str] = {}
        reports: dict[str, RunnerReport] = {}
        for case in cases:
            try:
                schema = self._registered(case, registered)
            except StreamtError as exc:  # an unreachable registry fails this test, not the others
                reports[case.name] = RunnerReport(error=exc.diagnostics[0])
                continue
            details = {"registry": schema if isinstance(schema, str) else f"compared with {schema.subject}"}
            reports[case.name] = RunnerReport(
                assertions=tuple(_evaluate(case, a, schema) for a in case.assertions), details=details
            )
        return reports

    def _registered(self, case: TestCase, cache: dict[str, RegisteredSchema | str]) -> RegisteredSchema | str:
        """The registered schema, or why the registry was not compared."""
        subject = case.target.subject
        if subject is None:
            return "no subject declared"
        if self.runtime.schema_registry is None:
            return "runtime.schema_registry not configured"
        if subject not in cache:
            cache[subject] = _read(self.runtime, subject)
        return cache[subject]


def _read(runtime: Any, subject: str) -> RegisteredSchema | str:
    from streamt_kafka.observers import registry_client

    latest = registry_client(runtime).latest(subject)
    if latest is None:
        return f"subject {subject} is not registered"
    fmt = str(latest.get("schemaType") or "AVRO").upper()
    if fmt == "PROTOBUF":
        return f"subject {subject} is Protobuf: not compared (needs the descriptor set)"
    text = str(latest.get("schema") or "")
    columns, problem = columns_of(fmt, text)
    if problem is not None:
        return f"subject {subject}: schema not compared ({problem})"
    return RegisteredSchema(subject, dict(columns), _optional(fmt, text))


def _optional(fmt: str, text: str) -> frozenset[str]:
    document = json.loads(text)  # columns_of has parsed it already
    if fmt == "AVRO":
        return frozenset(
            str(f["name"])
            for f in document["fields"]
            if isinstance(f, dict) and isinstance(f.get("type"), list) and "null" in f["type"]
        )
    required = set(document.get("required") or ())
    return frozenset(str(name) for name in document["properties"] if name not in required)


def _evaluate(case: TestCase, assertion: Any, schema: RegisteredSchema | str) -> AssertionResult:
    declared = {c.name: c for c in case.target.columns}
    registered = schema if isinstance(schema, RegisteredSchema) else None
    problems: list[dict[str, Any]] = []
    if assertion.kind == "not_null":
        checked = [str(c) for c in assertion.body.get("columns") or ()]
        for column in checked:
            problem = _not_null_problem(column, declared, registered)
            if problem:
                problems.append({"column": column, "problem": problem})
    else:  # accepted_types
        body = assertion.body
        expected = body["types"] if isinstance(body.get("types"), dict) else body
        checked = [str(c) for c in expected]
        for column in checked:
            problem = _type_problem(column, expected[column], declared, registered)
            if problem:
                problems.append({"column": column, "problem": problem})
    if not checked:
        return AssertionResult(
            assertion.index, assertion.kind, assertion.label, FAILED, 0, 0, reason="the assertion names no columns"
        )
    return AssertionResult(
        assertion.index,
        assertion.kind,
        assertion.label,
        FAILED if problems else PASSED,
        checked=len(checked),
        failed=len(problems),
        examples=tuple(problems[:MAX_EXAMPLES]),
    )


def _not_null_problem(column: str, declared: dict[str, Any], registered: RegisteredSchema | None) -> str | None:
    spec = declared.get(column)
    if spec is None:
        return "not a declared column"
    if not (spec.required or spec.nullable is False):
        return "declared without required: true"
    if registered is not None:
        if column not in registered.types:
            return f"not in registered subject {registered.subject}"
        if column in registered.optional:
            return f"optional in registered subject {registered.subject}"
    return None


def _type_problem(
    column: str, accepted: Any, declared: dict[str, Any], registered: RegisteredSchema | None
) -> str | None:
    wanted = canonical_type(accepted)
    if wanted is None:
        return f"'{accepted}' is not a type name"
    spec = declared.get(column)
    if spec is None:
        return "not a declared column"
    if spec.type is None:
        return "declared without a type"
    if canonical_type(spec.type) != wanted:
        return f"declared {spec.type}, accepted {accepted}"
    if registered is not None:
        found = registered.types.get(column)
        if found is None:
            return f"not in registered subject {registered.subject}"
        if canonical_type(found) != wanted:
            return f"registered as {found} in {registered.subject}, accepted {accepted}"
    return None
