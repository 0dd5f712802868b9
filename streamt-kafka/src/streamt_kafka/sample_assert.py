"""Row assertions over a decoded sample: ``not_null``, ``accepted_values``, ``range``, ``unique_key``/``unique``.

Each returns one ``AssertionResult`` with the number of records checked and failed and at
most five examples (partition, offset, key, column, and the offending value unless the column
is sensitive or masked). SQL assertions are in ``sample_sql``.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Number
from typing import Any

import attrs
from streamt.sdk import ERROR, FAILED, MAX_EXAMPLES, PASSED, Assertion, AssertionResult, Target

KEY_TEXT_LIMIT = 64


@attrs.frozen
class Row:
    partition: int
    offset: int
    key: bytes | None
    values: dict[str, Any]


def key_text(key: bytes | None) -> str | None:
    if key is None:
        return None
    try:
        text = key.decode("utf-8")
    except UnicodeDecodeError:
        text = key.hex()
    return text if len(text) <= KEY_TEXT_LIMIT else text[:KEY_TEXT_LIMIT] + "…"


def example(
    row: Row, target: Target, column: str | None = None, value: Any = None, show: bool = False
) -> dict[str, Any]:
    out: dict[str, Any] = {"partition": row.partition, "offset": row.offset}
    if row.key is not None and target.key_column not in target.sensitive:
        out["key"] = key_text(row.key)
    if column is not None:
        out["column"] = column
        if show and column not in target.sensitive:
            out["value"] = value if isinstance(value, str | int | float | bool) or value is None else str(value)
    return out


def _result(
    assertion: Assertion, checked: int, failures: list[dict[str, Any]], failed: int | None = None
) -> AssertionResult:
    count = len(failures) if failed is None else failed
    return AssertionResult(
        assertion.index,
        assertion.kind,
        assertion.label,
        FAILED if count else PASSED,
        checked=checked,
        failed=count,
        examples=tuple(failures[:MAX_EXAMPLES]),
    )


def _error(assertion: Assertion, reason: str) -> AssertionResult:
    return AssertionResult(assertion.index, assertion.kind, assertion.label, ERROR, reason=reason)


def _absent(rows: Sequence[Row], column: str) -> bool:
    return bool(rows) and all(column not in r.values for r in rows)


def not_null(assertion: Assertion, rows: Sequence[Row], target: Target) -> AssertionResult:
    columns = [str(c) for c in assertion.body.get("columns") or ()]
    if not columns:
        return _error(assertion, "not_null needs columns: [..]")
    failures = []
    for row in rows:
        missing = next((c for c in columns if row.values.get(c) is None), None)
        if missing is not None:
            failures.append(example(row, target, missing))
    return _result(assertion, len(rows), failures)


def accepted_values(assertion: Assertion, rows: Sequence[Row], target: Target) -> AssertionResult:
    column, values = assertion.body.get("column"), assertion.body.get("values")
    if not column or not isinstance(values, list):
        return _error(assertion, "accepted_values needs column and values: [..]")
    if _absent(rows, column):
        return _error(assertion, f"column '{column}' is in no record of the sample")
    allowed = {_hashable(v) for v in values}
    failures = [
        example(r, target, column, r.values[column], show=True)
        for r in rows
        if r.values.get(column) is not None and _hashable(r.values[column]) not in allowed
    ]
    return _result(assertion, len(rows), failures)


def value_range(assertion: Assertion, rows: Sequence[Row], target: Target) -> AssertionResult:
    column = assertion.body.get("column")
    low, high = assertion.body.get("min"), assertion.body.get("max")
    if not column or (low is None and high is None) or not all(_number(b) for b in (low, high) if b is not None):
        return _error(assertion, "range needs column and a numeric min and/or max")
    if _absent(rows, column):
        return _error(assertion, f"column '{column}' is in no record of the sample")
    failures = []
    for row in rows:
        value = row.values.get(column)
        if value is None:
            continue  # nulls are not_null's business
        if not _number(value) or (low is not None and value < low) or (high is not None and value > high):
            failures.append(example(row, target, column, value, show=True))
    return _result(assertion, len(rows), failures)


def unique(assertion: Assertion, rows: Sequence[Row], target: Target) -> AssertionResult:
    body = assertion.body
    key = body.get("columns") if assertion.kind == "unique" else body.get("key")
    columns = [str(c) for c in key] if isinstance(key, list) else ([str(key)] if key else [])
    if not columns:
        return _error(assertion, f"{assertion.kind} needs {'columns: [..]' if assertion.kind == 'unique' else 'key'}")
    for column in columns:
        if _absent(rows, column):
            return _error(assertion, f"column '{column}' is in no record of the sample")
    seen: set[Any] = set()
    failures = []
    for row in rows:
        value = tuple(_hashable(row.values.get(c)) for c in columns)
        if value in seen:
            shown = row.values.get(columns[0]) if len(columns) == 1 else None
            failures.append(example(row, target, ",".join(columns), shown, show=len(columns) == 1))
        seen.add(value)
    return _result(assertion, len(rows), failures)


def _number(value: Any) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool)


def _hashable(value: Any) -> Any:
    if isinstance(value, dict | list):
        return repr(value)
    return value


ROW_ASSERTIONS = {
    "not_null": not_null,
    "accepted_values": accepted_values,
    "range": value_range,
    "unique_key": unique,
    "unique": unique,
}
