"""SQL assertions (``custom_sql``, ``expression``) evaluated by DuckDB over the decoded sample.

Each test's sample is loaded column-wise into table ``sample`` (one ``unnest`` per column, no
files) with the record's top-level fields plus ``_partition``, ``_offset`` and ``_key``, in the
run's one in-memory connection (``SampleEngine``), and dropped when the test's assertions are done.
``{{ model }}`` / ``{{ this }}`` in a query name that table. Flink-style backtick identifiers
are rewritten to DuckDB's double quotes; nothing else in the SQL is touched.

* ``expression: {sql}`` — a row predicate; violations are rows where ``NOT (sql)`` holds.
* ``custom_sql: {where, detail_column?}`` — violations are rows where ``where`` holds.
* ``custom_sql: {sql, expect}`` — the query's first value must equal ``expect``.

The SQL comes from project files and runs over data from a topic, so the engine is sandboxed:
one ``SELECT`` statement per query (nothing a test creates can reach the next test), no files,
URLs or extensions, ``MEMORY_LIMIT`` of memory and ``THREADS`` threads, at most
``QUERY_ADDRESS_SPACE`` more of the process' address space while a query runs (what DuckDB
allocates outside its limit, e.g. ``repeat('x', 10^9)``), and each query is interrupted after
``QUERY_SECONDS`` (a recursive CTE or ``range(10^12)`` ends as that assertion's error, and the
run goes on). Results are bounded: a reason shows at most ``SHOWN_CHARACTERS`` of
a value, and none at all when the sample has a sensitive column (the query may have computed it
from one); a DuckDB runtime error's message, which can quote a value, is then reduced to its class.
"""

from __future__ import annotations

import datetime
import decimal
import json
import re
import resource
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from streamt.sdk import ERROR, FAILED, MAX_EXAMPLES, PASSED, Assertion, AssertionResult, Target

from streamt_kafka.sample_assert import Row, example, key_text

TABLE = "sample"
MEMORY_LIMIT = "256MB"
THREADS = 1
QUERY_SECONDS = 10.0
QUERY_ADDRESS_SPACE = 512 * 1024 * 1024
SHOWN_CHARACTERS = 200
_INT64 = (-(2**63), 2**63 - 1)
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


def _column_type(kinds: set[type], values: list[Any]) -> str:
    if not kinds:
        return "VARCHAR"
    if kinds == {bool}:
        return "BOOLEAN"
    if int in kinds and any(type(v) is int and not _INT64[0] <= v <= _INT64[1] for v in values):
        return "VARCHAR"  # a record's integer need not fit any SQL number type: the column is its text
    if kinds == {int}:
        return "BIGINT"
    if kinds <= {int, float, decimal.Decimal}:
        return "DOUBLE"
    if kinds == {datetime.datetime}:
        return "TIMESTAMPTZ" if any(v.tzinfo for v in values if v is not None) else "TIMESTAMP"
    if kinds == {datetime.date}:
        return "DATE"
    return "VARCHAR"


def _cells(values: list[Any], kinds: set[type], sql_type: str) -> list[Any]:
    """``values`` as DuckDB takes them for a column of ``sql_type``; a column that needs no conversion (all
    numbers, flags, times, or text and nulls) is passed as it is."""
    if sql_type != "VARCHAR":
        if decimal.Decimal in kinds:
            return [float(v) if isinstance(v, decimal.Decimal) else v for v in values]
        return values
    if kinds <= {str}:
        return values
    return [None if v is None else _text(v) for v in values]


def _text(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, default=str)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


class SampleTableError(ValueError):
    """The sample's fields cannot be the columns of one SQL table; the message says why."""


def _columns(rows: Sequence[Row]) -> dict[str, tuple[str, list[Any]]]:
    """``{name: (sql type, values)}`` of the table holding ``rows``; ``SampleTableError`` when the fields
    cannot be its columns (DuckDB's names ignore case, so ``a`` and ``A`` would be one column)."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row.values))
    folded: dict[str, str] = {"_partition": "_partition", "_offset": "_offset", "_key": "_key"}
    for name in names:
        seen = folded.setdefault(name.casefold(), name)
        if seen != name:
            raise SampleTableError(f"fields {seen!r} and {name!r} differ only in case")
    columns: dict[str, tuple[str, list[Any]]] = {
        "_partition": ("BIGINT", [r.partition for r in rows]),
        "_offset": ("BIGINT", [r.offset for r in rows]),
        "_key": ("VARCHAR", [key_text(r.key) for r in rows]),
    }
    for name in names:
        if name in columns:
            continue
        raw = [r.values.get(name) for r in rows]
        kinds = {type(v) for v in raw if v is not None}
        sql_type = _column_type(kinds, raw)
        columns[name] = (sql_type, _cells(raw, kinds, sql_type))
    return columns


class SampleEngine:
    """One sandboxed in-memory DuckDB connection for a whole run, opened at the first SQL assertion.

    Opening a connection costs more than loading a sample of 1,000 rows, so the tests share one; each
    test's sample is table ``sample`` only while ``table`` holds it, dropped afterwards. Nothing else
    outlives a test: the settings are locked, and ``evaluate`` runs only single ``SELECT`` statements,
    so a test's SQL cannot create, change or drop anything another test would see. A connection whose
    ``DROP`` fails (a fatal error invalidates the database) is closed, and the next test opens a new one.
    """

    def __init__(self) -> None:
        self._con: Any = None

    @contextmanager
    def table(self, rows: Sequence[Row]) -> Iterator[Any]:
        """The connection, holding ``rows`` as table ``sample`` until the block ends."""
        import duckdb

        columns = _columns(rows)
        con = self._con = self._con or _connect()
        ddl = ", ".join(f"{quote(n)} {t}" for n, (t, _) in columns.items())
        con.execute(f"CREATE TABLE {TABLE} ({ddl})")
        try:
            if rows:
                selects = ", ".join(f"unnest(?::{t}[])" for t, _ in columns.values())
                con.execute(f"INSERT INTO {TABLE} SELECT {selects}", [values for _, values in columns.values()])
            yield con
        finally:
            try:
                con.execute(f"DROP TABLE {TABLE}")
            except duckdb.Error:
                self.close()

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


def _connect() -> Any:
    import duckdb

    con = duckdb.connect(":memory:")
    # The assertions' SQL comes from project files: it may read the sample, never files, URLs or extensions,
    # and never spill to disk.
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    con.execute(f"SET threads = {THREADS}")
    con.execute("SET temp_directory = ''")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


@contextmanager
def _sandboxed(con: Any) -> Iterator[None]:
    """Interrupt whatever ``con`` runs once ``QUERY_SECONDS`` have passed, and bound its address space.

    DuckDB's ``memory_limit`` covers its buffer pool, not every allocation: ``repeat('x', 10^9)``
    builds its string outside it. While a query runs, the process may map at most
    ``QUERY_ADDRESS_SPACE`` more bytes (``RLIMIT_AS``, Linux), so such an allocation fails at once
    as DuckDB's out-of-memory error; the sample was read before, so nothing else allocates meanwhile.
    """
    timer = threading.Timer(QUERY_SECONDS, con.interrupt)
    timer.daemon = True
    timer.start()
    limits = _address_space_limit()
    try:
        yield
    finally:
        if limits is not None:
            resource.setrlimit(resource.RLIMIT_AS, limits)
        timer.cancel()


def _address_space_limit() -> tuple[int, int] | None:
    """Lower the soft ``RLIMIT_AS`` to the mapped size plus ``QUERY_ADDRESS_SPACE``; the limits to restore."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            mapped = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        bound = mapped + QUERY_ADDRESS_SPACE
        if soft != resource.RLIM_INFINITY and soft <= bound:
            return None  # already tighter
        resource.setrlimit(resource.RLIMIT_AS, (bound if hard == resource.RLIM_INFINITY else min(bound, hard), hard))
    except (OSError, ValueError, StopIteration):  # no /proc, or limits this platform will not take
        return None
    return soft, hard


def evaluate(con: Any, assertion: Assertion, rows: Sequence[Row], target: Target) -> AssertionResult:
    import duckdb

    body = assertion.body
    try:
        with _sandboxed(con):
            if assertion.kind == "expression":
                if not body.get("sql"):
                    return _error(assertion, "expression needs sql (a boolean row predicate)")
                return _violations(con, assertion, f"NOT ({duckdb_sql(str(body['sql']))})", None, rows, target)
            if body.get("where"):
                detail = body.get("detail_column")
                return _violations(con, assertion, duckdb_sql(str(body["where"])), detail, rows, target)
            if body.get("sql") and "expect" in body:
                return _expect(con, assertion, duckdb_sql(str(body["sql"])), body["expect"], len(rows), target)
            return _error(assertion, "custom_sql needs sql + expect, or where (+ name, detail_column)")
    except NotOneSelect:
        return _error(assertion, "the SQL must be one SELECT statement: sample tests only read the sample")
    except duckdb.InterruptException:
        return _error(assertion, f"the query did not finish within {QUERY_SECONDS:g} s")
    except duckdb.OutOfMemoryException:
        return _error(assertion, f"the query needed more than the {MEMORY_LIMIT} the test engine allows")
    except duckdb.Error as exc:
        # Parser, binder and catalog messages name the SQL's tokens and columns, never data; a runtime error
        # can quote a value (a failed conversion, ``error(email)``): with sensitive columns only its class is shown.
        if target.sensitive and not isinstance(
            exc, duckdb.ParserException | duckdb.BinderException | duckdb.CatalogException
        ):
            return _error(assertion, f"SQL error: {type(exc).__name__} (the message is not shown: sensitive columns)")
        return _error(assertion, f"SQL error: {_shown(str(exc).splitlines()[0], quoted=False)}")


def _violations(
    con: Any, assertion: Assertion, condition: str, detail: str | None, rows: Sequence[Row], target: Target
) -> AssertionResult:
    failed = _select(con, f"SELECT count(*) FROM {TABLE} WHERE {condition}").fetchone()[0]
    picked = (
        _select(
            con,
            f"SELECT _partition, _offset FROM {TABLE} WHERE {condition} ORDER BY _partition, _offset "
            f"LIMIT {MAX_EXAMPLES}",
        ).fetchall()
        if failed
        else []
    )
    by_position = {(r.partition, r.offset): r for r in rows} if picked else {}
    examples = []
    for partition, offset in picked:
        row = by_position[(partition, offset)]
        examples.append(example(row, target, detail, row.values.get(detail) if detail else None, show=bool(detail)))
    status = FAILED if failed else PASSED
    return AssertionResult(
        assertion.index, assertion.kind, _label(assertion), status, len(rows), int(failed), tuple(examples)
    )


def _expect(con: Any, assertion: Assertion, query: str, expected: Any, checked: int, target: Target) -> AssertionResult:
    row = _select(con, query).fetchone()
    actual = row[0] if row else None
    same = actual == expected or (actual is not None and str(actual) == str(expected))
    if same:
        reason = None
    elif target.sensitive:  # the value may be computed from a sensitive column: never shown
        reason = f"returned another value than expected {_shown(expected)} (not shown: sensitive columns)"
    else:
        reason = f"returned {_shown(actual)}, expected {_shown(expected)}"
    return AssertionResult(
        assertion.index, assertion.kind, _label(assertion), PASSED if same else FAILED, checked, 0 if same else 1,
        reason=reason,
    )  # fmt: skip


class NotOneSelect(ValueError):
    """The SQL is not a single ``SELECT``: tests read the sample and change nothing."""


def _select(con: Any, query: str) -> Any:
    """``con`` after running ``query``, which must be one ``SELECT`` statement (a ``;`` in a ``where``
    or ``sql`` could otherwise create or drop what the next test of the run would see)."""
    import duckdb

    statements = con.extract_statements(query)
    if len(statements) != 1 or statements[0].type != duckdb.StatementType.SELECT:
        raise NotOneSelect
    return con.execute(query)


def _shown(value: Any, quoted: bool = True) -> str:
    """``value`` as a reason shows it: its ``repr`` (or the text as it is), at most ``SHOWN_CHARACTERS`` long."""
    if isinstance(value, str | bytes) and len(value) > SHOWN_CHARACTERS:  # cut before repr copies it
        cut = value[:SHOWN_CHARACTERS]
        return f"{cut!r}... ({len(value)} long)" if quoted else f"{cut!s}... ({len(value)} long)"
    text = repr(value) if quoted else str(value)
    return text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "..."


def _label(assertion: Assertion) -> str:
    name = assertion.body.get("name") or assertion.body.get("description")
    return f"{assertion.kind}({name})" if name else assertion.kind


def _error(assertion: Assertion, reason: str) -> AssertionResult:
    return AssertionResult(assertion.index, assertion.kind, _label(assertion), ERROR, reason=reason)
