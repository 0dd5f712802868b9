"""Which columns a SELECT projects (name, source column, inferred type family) and which it reads.

sqlparse is a tokenizer with light grouping, not a full parser: anything it cannot classify is
left out rather than guessed, so callers only warn about what was recognised.
"""

from __future__ import annotations

import re

import attrs

from streamt.sql.columns_select import SelectItem, simple_select_items

_AGG_NUMERIC = re.compile(r"^\s*(COUNT|SUM|AVG)\s*\(", re.IGNORECASE)
# Aggregates whose result has (the family of) their argument's type, when the argument is a column.
_SAME_TYPE_AGG = re.compile(r"^\s*(SUM|MIN|MAX|AVG|FIRST_VALUE|LAST_VALUE)\s*\(\s*[`A-Za-z_][\w.`]*\s*\)\s*$", re.I)
_CAST = re.compile(r"^\s*CAST\s*\(.*\bAS\s+([A-Za-z_]+)", re.IGNORECASE | re.DOTALL)
_WINDOW_TIME = re.compile(r"^\s*(TUMBLE|HOP|SESSION|CUMULATE)_(START|END|ROWTIME)\s*\(", re.IGNORECASE)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$")


@attrs.frozen
class Projected:
    """One column of a select list: its ``name``, the upstream column it is a plain copy of (``origin``), its
    inferred ``type`` otherwise, the select-list ``expression`` of a derived column and the upstream columns it
    reads (``inputs``)."""

    name: str
    origin: str | None  # upstream column it is a plain copy of
    type: str | None  # inferred type when not a plain copy
    expression: str | None = None  # the select-list expression of a derived column
    inputs: tuple[str, ...] = ()  # upstream columns a derived column reads (``SUM(amount)`` -> amount)


@attrs.frozen
class Projection:
    """A recognised top-level select list: its ``columns`` in order, and ``star`` when it also selects ``*``."""

    columns: tuple[Projected, ...]
    star: bool


def projection(sql: str) -> Projection | None:
    """The top-level select list of ``sql``, or ``None`` when it cannot be recognised."""
    items = simple_select_items(sql)
    if items is None:
        items = _parsed_select_items(sql)
    if items is None:
        return None
    out: list[Projected] = []
    star = False
    for item in items:
        text, alias = item.text, item.alias
        if text == "*" or text.endswith(".*"):
            star = True
            continue
        expression = text
        if alias:
            expression = re.split(r"\s+(?:AS\s+)?" + re.escape(alias) + r"\s*$", text, flags=re.IGNORECASE)[0]
        expression = expression.strip()
        if _IDENT.match(expression) and expression.lower() not in _KEYWORDS:  # CURRENT_DATE is no column
            column = expression.split(".")[-1]
            out.append(Projected(alias or column, column, None))
        elif alias:
            out.append(Projected(alias, None, _expression_type(expression), expression, expression_inputs(expression)))
    return Projection(tuple(out), star)


def _parsed_select_items(sql: str) -> list[SelectItem] | None:
    """The select list as sqlparse's grouping reads it: any shape ``simple_select_items`` declines."""
    import sqlparse
    from sqlparse.sql import Identifier, IdentifierList
    from sqlparse.tokens import DML, Keyword

    statements = sqlparse.parse(sql)
    if not statements:
        return None
    seen_select = False
    items = None
    for token in statements[0].tokens:
        if token.ttype is DML and token.normalized == "SELECT":
            seen_select = True
            continue
        if not seen_select or token.is_whitespace:
            continue
        if token.ttype is Keyword and token.normalized in ("DISTINCT", "ALL"):
            continue
        if isinstance(token, IdentifierList):
            items = list(token.get_identifiers())
        elif token.ttype is Keyword and token.normalized == "FROM":
            break
        else:
            items = [token]
        break
    if items is None:
        return None
    return [SelectItem(str(i).strip(), i.get_alias() if isinstance(i, Identifier) else None) for i in items]


def expression_inputs(expression: str) -> tuple[str, ...]:
    """The column names an expression reads, in order of first use (functions, keywords, literals left out)."""
    text = _NOISE.sub(" ", expression)
    found: dict[str, None] = {}
    for match in _WORD.finditer(text):
        if match.group(1) is not None:
            found.setdefault(match.group(1), None)
            continue
        if text[match.end() :].lstrip().startswith("("):
            continue  # a function call
        name = match.group(0).rsplit(".", 1)[-1].strip()
        if name.lower() not in _KEYWORDS:
            found.setdefault(name, None)
    return tuple(found)


def aggregate_of(expression: str) -> str | None:
    """``SUM``/``AVG``/``MIN``/``MAX`` when the expression is one of those over one argument, else ``None``."""
    match = _SAME_TYPE_AGG.match(expression)
    return match.group(1).upper() if match else None


def _expression_type(expression: str) -> str | None:
    if _AGG_NUMERIC.match(expression):
        return "BIGINT"
    if _WINDOW_TIME.match(expression):
        return "TIMESTAMP(3)"
    cast = _CAST.match(expression)
    return cast.group(1).upper() if cast else None


_FAMILIES = {
    "string": ("STRING", "VARCHAR", "CHAR", "TEXT"),
    "integer": ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "LONG"),
    "decimal": ("FLOAT", "DOUBLE", "DECIMAL", "NUMERIC", "REAL"),
    "boolean": ("BOOLEAN", "BOOL"),
    "time": ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME"),
    "bytes": ("BYTES", "BINARY", "VARBINARY"),
}


def type_family(sql_type: str | None) -> str | None:
    if not sql_type:
        return None
    base = re.split(r"[\s(<]", sql_type.strip().upper(), maxsplit=1)[0]
    for family, names in _FAMILIES.items():
        if base in names:
            return "number" if family in ("integer", "decimal") else family
    return None


def where_clause(sql: str) -> str | None:
    """The text of the top-level ``WHERE`` condition of ``sql`` (up to GROUP BY, ORDER BY or LIMIT), or ``None``."""
    match = re.search(r"\bWHERE\b(.*?)(?:\bGROUP\s+BY\b|\bORDER\s+BY\b|\bLIMIT\b|$)", sql, re.IGNORECASE | re.DOTALL)
    return match.group(1).strip() if match else None


# --- columns a query reads (W102) ---------------------------------------------------------------------
# A regex tokenizer, not a parser: it is run on every model that reads declared sources, so it must
# cost microseconds. Anything it cannot read with confidence (subqueries, CTEs, table functions that
# add columns) makes it answer None rather than guess: a wrong W102 is worse than a missing one.

_NOISE = re.compile(r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'", re.DOTALL)
_WORD = re.compile(r"`([^`]+)`|[A-Za-z_][A-Za-z0-9_$]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_$]*)*")
_ALIAS = re.compile(r"\bAS\s+`?([A-Za-z_][A-Za-z0-9_]*)`?", re.IGNORECASE)
_TABLE = "\x00table\x00"
_TABLE_ALIAS = re.compile(re.escape(_TABLE) + r"\s+(?:AS\s+)?`?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)
_UNREADABLE = re.compile(r"\b(WITH|LATERAL|UNNEST|MATCH_RECOGNIZE|VALUES)\b", re.IGNORECASE)
_SELECT = re.compile(r"\bSELECT\b", re.IGNORECASE)
# Columns that window table functions add to their input.
WINDOW_COLUMNS = frozenset({"window_start", "window_end", "window_time"})
_KEYWORDS = frozenset(
    """
    select from where group by order having as and or not null is in like similar between case when then else end
    distinct all union intersect except minus join left right inner outer full cross on using natural semi anti
    true false unknown interval second seconds minute minutes hour hours day days week month months year years
    to limit offset fetch first next last only nulls asc desc over partition rows range preceding following
    unbounded current row table descriptor for system_time of escape exists any some filter within qualify
    window emit watermark insert into set values
    string varchar char int integer bigint smallint tinyint boolean bool double float real decimal numeric bytes
    binary varbinary date time timestamp timestamp_ltz local zone with without array map multiset
    current_timestamp current_date current_time localtime localtimestamp current_row_timestamp
    """.split()  # noqa: SIM905 - a word list reads better than 140 quoted strings
)


def referenced_columns(sql: str, tables: tuple[str, ...]) -> set[str] | None:
    """Lower-cased column names ``sql`` reads from ``tables`` (physical topic names), or ``None``.

    Function names, keywords, ``AS`` aliases and table aliases are left out; ``t.col`` counts as ``col``.
    """
    text = _NOISE.sub(" ", sql)
    if len(_SELECT.findall(text)) != 1 or _UNREADABLE.search(text):
        return None
    for table in sorted(tables, key=len, reverse=True):  # longest first: one topic may prefix another
        text = text.replace(table, _TABLE)
    skip = {m.group(1).lower() for m in _ALIAS.finditer(text)}
    skip |= {m.group(1).lower() for m in _TABLE_ALIAS.finditer(text)}
    found: set[str] = set()
    for match in _WORD.finditer(text):
        if match.group(1) is not None:  # `quoted identifier`
            found.add(match.group(1).lower())
            continue
        word = match.group(0)
        if text[match.end() :].lstrip().startswith("("):
            continue  # a function call
        name = word.rsplit(".", 1)[-1].strip().lower()
        if name not in _KEYWORDS and name not in skip and name != "table":
            found.add(name)  # "table" is also the word inside the _TABLE marker
    return found
