"""SQL assertions (``custom_sql``, ``expression``) evaluated by DuckDB over the decoded sample.

The sample is loaded column-wise into an in-memory table ``sample`` (one ``unnest`` per column,
no files) with the record's top-level fields plus ``_partition``, ``_offset`` and ``_key``.
``{{ model }}`` / ``{{ this }}`` in a query name that table. Flink-style backtick identifiers
are rewritten to DuckDB's double quotes; nothing else in the SQL is touched.

* ``expression: {sql}`` — a row predicate; violations are rows where ``NOT (sql)`` holds.
* ``custom_sql: {where, detail_column?}`` — violations are rows where ``where`` holds.
* ``custom_sql: {sql, expect}`` — the query's first value must equal ``expect``.
"""

from __future__ import annotations

import datetime
import decimal
import json
import re
from collections.abc import Sequence
from typing import Any

from streamt.sdk import ERROR, FAILED, MAX_EXAMPLES, PASSED, Assertion, AssertionResult, Target

from streamt_kafka.sample_assert import Row, example, key_text

TABLE = "sample"
_PLACEHOLDER = re.compile(r"\{\{\s*(?:model|this)\s*\}\}")
_BACKTICK_OR_STRING = re.compile(r"'(?:[^']|'')*'|`((?:[^`]|``)+)`")


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def duckdb_sql(text: str) -> str:
    def swap(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return match.group(0)  # a string literal stays as written
        return quote(match.group(1).replace("``", "`"))

    return _BACKTICK_OR_STRING.sub(swap, _PLACEHOLDER.sub(TABLE, text))


def _column_type(values: list[Any]) -> str:
    kinds = {type(v) for v in values if v is not None}
    if not kinds:
        return "VARCHAR"
    if kinds == {bool}:
        return "BOOLEAN"
    if kinds == {int}:
        return "BIGINT"
    if kinds <= {int, float, decimal.Decimal}:
        return "DOUBLE"
    if kinds == {datetime.datetime}:
        return "TIMESTAMPTZ" if any(v.tzinfo for v in values if v is not None) else "TIMESTAMP"
    if kinds == {datetime.date}:
        return "DATE"
    return "VARCHAR"


def _cell(value: Any, sql_type: str) -> Any:
    if value is None or sql_type != "VARCHAR":
        return float(value) if isinstance(value, decimal.Decimal) else value
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def load(rows: Sequence[Row]) -> Any:
    """A DuckDB connection holding the sample as table ``sample``."""
    import duckdb

    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row.values))
    columns: dict[str, tuple[str, list[Any]]] = {
        "_partition": ("BIGINT", [r.partition for r in rows]),
        "_offset": ("BIGINT", [r.offset for r in rows]),
        "_key": ("VARCHAR", [key_text(r.key) for r in rows]),
    }
    for name in names:
        if name in columns:
            continue
        raw = [r.values.get(name) for r in rows]
        sql_type = _column_type(raw)
        columns[name] = (sql_type, [_cell(v, sql_type) for v in raw])
    con = duckdb.connect(":memory:")
    ddl = ", ".join(f"{quote(n)} {t}" for n, (t, _) in columns.items())
    con.execute(f"CREATE TABLE {TABLE} ({ddl})")
    if rows:
        selects = ", ".join(f"unnest(?::{t}[])" for t, _ in columns.values())
        con.execute(f"INSERT INTO {TABLE} SELECT {selects}", [values for _, values in columns.values()])
    # The assertions' SQL comes from project files: it may read the sample, never files, URLs or extensions.
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def evaluate(con: Any, assertion: Assertion, rows: Sequence[Row], target: Target) -> AssertionResult:
    import duckdb

    body = assertion.body
    try:
        if assertion.kind == "expression":
            if not body.get("sql"):
                return _error(assertion, "expression needs sql (a boolean row predicate)")
            return _violations(con, assertion, f"NOT ({duckdb_sql(str(body['sql']))})", None, rows, target)
        if body.get("where"):
            detail = body.get("detail_column")
            return _violations(con, assertion, duckdb_sql(str(body["where"])), detail, rows, target)
        if body.get("sql") and "expect" in body:
            return _expect(con, assertion, duckdb_sql(str(body["sql"])), body["expect"], len(rows))
        return _error(assertion, "custom_sql needs sql + expect, or where (+ name, detail_column)")
    except duckdb.Error as exc:
        # DuckDB's message names the column or token at fault; it holds the user's SQL, never data.
        return _error(assertion, f"SQL error: {str(exc).splitlines()[0]}")


def _violations(
    con: Any, assertion: Assertion, condition: str, detail: str | None, rows: Sequence[Row], target: Target
) -> AssertionResult:
    failed = con.execute(f"SELECT count(*) FROM {TABLE} WHERE {condition}").fetchone()[0]
    picked = con.execute(
        f"SELECT _partition, _offset FROM {TABLE} WHERE {condition} ORDER BY _partition, _offset LIMIT {MAX_EXAMPLES}"
    ).fetchall()
    by_position = {(r.partition, r.offset): r for r in rows}
    examples = []
    for partition, offset in picked:
        row = by_position[(partition, offset)]
        examples.append(example(row, target, detail, row.values.get(detail) if detail else None, show=bool(detail)))
    status = FAILED if failed else PASSED
    return AssertionResult(
        assertion.index, assertion.kind, _label(assertion), status, len(rows), int(failed), tuple(examples)
    )


def _expect(con: Any, assertion: Assertion, query: str, expected: Any, checked: int) -> AssertionResult:
    row = con.execute(query).fetchone()
    actual = row[0] if row else None
    same = actual == expected or (actual is not None and str(actual) == str(expected))
    return AssertionResult(
        assertion.index,
        assertion.kind,
        _label(assertion),
        PASSED if same else FAILED,
        checked,
        0 if same else 1,
        reason=None if same else f"returned {actual!r}, expected {expected!r}",
    )


def _label(assertion: Assertion) -> str:
    name = assertion.body.get("name") or assertion.body.get("description")
    return f"{assertion.kind}({name})" if name else assertion.kind


def _error(assertion: Assertion, reason: str) -> AssertionResult:
    return AssertionResult(assertion.index, assertion.kind, _label(assertion), ERROR, reason=reason)
