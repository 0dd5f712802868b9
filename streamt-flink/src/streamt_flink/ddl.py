"""Flink SQL text builders: identifiers, literals, CREATE TABLE, SET and INSERT INTO.

Pure functions of plain values, written to the Flink 1.20 grammar (``CREATE TABLE [IF NOT EXISTS]``
with a column list, ``WATERMARK FOR <col> AS <expr>``, ``PRIMARY KEY (...) NOT ENFORCED`` and a
``WITH ('key' = 'value', ...)`` option list; ``SET 'key' = 'value'``). Every identifier is
backtick-quoted so that column names which happen to be reserved words (``value``, ``timestamp``,
``year`` ...) never change the meaning of a statement.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

import attrs
from streamt.sdk import declared_type_problem


@attrs.frozen
class TableColumn:
    """One column of a generated table: a physical column, or a computed one (``AS <expr>``)."""

    name: str
    type: str = "STRING"
    not_null: bool = False
    computed: str | None = None


@attrs.frozen
class Watermark:
    column: str
    max_out_of_orderness_ms: int = 0


def quote_ident(name: str) -> str:
    """Backtick-quote an identifier; a backtick inside is doubled (Flink's escape)."""
    return "`" + name.replace("`", "``") + "`"


def quote_string(value: str) -> str:
    """A SQL string literal; a quote inside is doubled."""
    return "'" + value.replace("'", "''") + "'"


@lru_cache(maxsize=4096)  # a project repeats a handful of types across every table of every job
def normalize_type(sql_type: str | None) -> str:
    """The declared type, upper-cased and checked; ``STRING`` when none was declared."""
    if not sql_type:
        return "STRING"
    # The rule validate applies too, so that a typo cannot smuggle SQL into a DDL statement.
    if declared_type_problem(sql_type) is not None:
        raise ValueError(f"not a Flink SQL type: {sql_type!r}")
    text = " ".join(sql_type.split())
    # ARRAY/MAP/ROW keep their field names and comments as written; only those contain '<'.
    return text if "<" in text else text.upper()


def watermark_expression(mark: Watermark) -> str:
    """``c - INTERVAL 'n' SECOND`` (bounded out-of-orderness), or ``c`` (monotonous).

    Whole seconds read best; sub-second bounds keep millisecond precision with a decimal literal.
    """
    column = quote_ident(mark.column)
    ms = mark.max_out_of_orderness_ms
    if ms <= 0:
        return column
    if ms % 1000 == 0:
        return f"{column} - INTERVAL {quote_string(str(ms // 1000))} SECOND"
    return f"{column} - INTERVAL {quote_string(f'{ms / 1000:.3f}')} SECOND"


def create_table(
    name: str,
    columns: Sequence[TableColumn],
    options: Mapping[str, str],
    watermark: Watermark | None = None,
    primary_key: Sequence[str] = (),
) -> str:
    """``CREATE TABLE IF NOT EXISTS`` with columns, watermark, primary key and ``WITH`` options.

    Options are written in sorted key order so that the same table always renders the same bytes.
    """
    if not columns:
        raise ValueError(f"table {name!r} needs at least one column")
    lines = [_column_line(column.name, column.type, column.not_null, column.computed) for column in columns]
    if watermark is not None:
        lines.append(f"  WATERMARK FOR {quote_ident(watermark.column)} AS {watermark_expression(watermark)}")
    if primary_key:
        keys = ", ".join(quote_ident(key) for key in primary_key)
        lines.append(f"  PRIMARY KEY ({keys}) NOT ENFORCED")
    body = ",\n".join(lines)
    # quote_string inlined: it runs for every option of every table.
    with_list = ",\n".join(
        [_option_prefix(key) + "'" + value.replace("'", "''") + "'" for key, value in sorted(options.items())]
    )
    return f"CREATE TABLE IF NOT EXISTS {quote_ident(name)} (\n{body}\n) WITH (\n{with_list}\n)"


# Both cached: a project's tables repeat a few column names and types and one vocabulary of option keys.
@lru_cache(maxsize=4096)
def _column_line(name: str, sql_type: str, not_null: bool, computed: str | None) -> str:
    """The column's line of the table body, indented."""
    if computed is not None:
        return f"  {quote_ident(name)} AS {computed}"
    return f"  {quote_ident(name)} {normalize_type(sql_type)}{' NOT NULL' if not_null else ''}"


@lru_cache(maxsize=256)
def _option_prefix(key: str) -> str:
    return f"  {quote_string(key)} = "


def set_statement(key: str, value: str) -> str:
    return _set_prefix(key) + quote_string(value)


@lru_cache(maxsize=256)  # a handful of option keys
def _set_prefix(key: str) -> str:
    return f"SET {quote_string(key)} = "


def insert_into(table: str, query: str) -> str:
    return f"INSERT INTO {quote_ident(table)}\n{query.strip()}"


def wrap_select(query: str, items: Sequence[tuple[str, str | None]]) -> str:
    """``SELECT <items> FROM (<query>)``: each item is a column and an optional replacement expression.

    Used to reorder, cast or mask the output of a model query without touching its text.
    """
    rendered = []
    for column, expression in items:
        rendered.append(f"{expression} AS {quote_ident(column)}" if expression else quote_ident(column))
    inner = "\n".join(f"  {line}" if line else line for line in query.strip().splitlines())
    return "SELECT\n  " + ",\n  ".join(rendered) + f"\nFROM (\n{inner}\n) AS `_q`"


def script(statements: Iterable[str]) -> str:
    """The ``.sql`` file: one statement per ``;``, a blank line between statements."""
    items = list(statements)
    text = ";\n\n".join(items) + ";\n\n" if items else ""
    return text.rstrip("\n") + "\n"


_NOT_IN_TABLE_NAME = re.compile(r"[^A-Za-z0-9_]")


def table_name_for_topic(topic: str) -> str:
    """The Flink table that reads a topic: ``.`` and ``-`` become ``_`` (dsl.md section 9.4)."""
    return _NOT_IN_TABLE_NAME.sub("_", topic)


def _disambiguated(name: str, topic: str) -> str:
    return f"{name}_{hashlib.sha256(topic.encode()).hexdigest()[:8]}"


def table_names(topics: Iterable[str], sink_topic: str | None = None) -> dict[str, str]:
    """Unique table names for the topics one job reads (and ``sink_topic`` -> ``<name>_sink``).

    ``a.b`` and ``a_b`` both read as ``a_b``; when that happens inside one job, every topic whose
    name had to be rewritten gets a suffix from a hash of its full name, so the names stay unique
    and do not depend on declaration order. A topic that is already a plain identifier keeps it.
    """
    out = {topic: table_name_for_topic(topic) for topic in sorted(set(topics))}
    if len(set(out.values())) < len(out):  # two topics read as one name: rare, so counted only then
        counts: dict[str, int] = {}
        for name in out.values():
            counts[name] = counts.get(name, 0) + 1
        out = {t: _disambiguated(n, t) if counts[n] > 1 and n != t else n for t, n in out.items()}
    if sink_topic is not None:
        sink = table_name_for_topic(sink_topic) + "_sink"
        out[sink_topic + "\0sink"] = _disambiguated(sink, sink_topic) if sink in out.values() else sink
    return out


def sink_key(topic: str) -> str:
    """The key of the sink table in ``table_names``' answer (a topic can be read and written by one job)."""
    return topic + "\0sink"
