"""The SQL subset the packaged Kafka Streams runner executes (dsl.md section 9.6), parsed strictly.

    SELECT col [[AS] alias], ... FROM {{ source("x") }} | {{ ref("x") }}
    [WHERE col <op> literal | col IS [NOT] NULL [AND ...]]

``<op>`` is one of ``= <> != > >= < <=``; a literal is a quoted string, an integer, ``TRUE`` or
``FALSE``. Anything else (``*``, functions, joins, windows, aggregation, ``OR``, sub-queries) is
refused with a message naming what was found: the runner is a fixed program, not a SQL engine.
"""

from __future__ import annotations

import re

import attrs
import sqlparse
from sqlparse import tokens as T

_RELATION_RE = re.compile(r"""\{\{-?\s*(source|ref)\(\s*(['"])([^'"]+)\2\s*\)\s*-?\}\}""")
_INPUT = "__streamt_input__"
COMPARISONS = ("=", "<>", "!=", ">", ">=", "<", "<=")


class SubsetError(ValueError):
    """The SQL is outside the runner subset; the message says where."""


@attrs.frozen
class Projection:
    column: str
    name: str


@attrs.frozen
class Predicate:
    column: str
    op: str  # a comparison, "IS NULL" or "IS NOT NULL"
    value: str | int | bool | None = None


@attrs.frozen
class RunnerQuery:
    input_kind: str  # "source" or "model"
    input_name: str
    projections: tuple[Projection, ...]
    predicates: tuple[Predicate, ...]


class _Cursor:
    def __init__(self, tokens: list[sqlparse.sql.Token]) -> None:
        self.tokens = tokens
        self.index = 0

    def peek(self) -> sqlparse.sql.Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self) -> sqlparse.sql.Token:
        token = self.peek()
        if token is None:
            raise SubsetError("the statement ends early")
        self.index += 1
        return token

    def word(self) -> str | None:
        token = self.peek()
        return " ".join(token.value.upper().split()) if token is not None else None


def _name(token: sqlparse.sql.Token) -> str:
    if (token.ttype in T.Name and token.ttype not in T.Name.Builtin) or token.ttype in T.Keyword:
        value = token.value
        if value.startswith("`") and value.endswith("`"):
            return value[1:-1]
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            return value
    raise SubsetError(f"expected a column name, found '{token.value}'")


def _literal(token: sqlparse.sql.Token) -> str | int | bool:
    if token.ttype in T.Literal.String.Single:
        return token.value[1:-1].replace("''", "'")
    if token.ttype in T.Literal.Number.Integer:
        return int(token.value)
    if token.ttype in T.Keyword and token.value.upper() in ("TRUE", "FALSE"):
        return token.value.upper() == "TRUE"
    raise SubsetError(f"expected a string, integer or boolean literal, found '{token.value}'")


def parse(sql: str) -> RunnerQuery:
    relations = _RELATION_RE.findall(sql)
    if len(relations) != 1:
        raise SubsetError(f"the query must read exactly one source() or ref(), found {len(relations)}")
    kind, _, name = relations[0]
    text = _RELATION_RE.sub(_INPUT, sql).strip().rstrip(";")
    if any(marker in text for marker in ("{{", "{%", "{#")):
        raise SubsetError("only source() or ref() may be templated")
    statements = sqlparse.parse(text)
    if len(statements) != 1:
        raise SubsetError("exactly one SELECT statement is supported")
    tokens = [t for t in statements[0].flatten() if not t.is_whitespace and t.ttype not in T.Comment]
    cursor = _Cursor(tokens)
    if cursor.word() != "SELECT":
        raise SubsetError("the statement must start with SELECT")
    cursor.take()
    projections = [_projection(cursor)]
    while cursor.word() == ",":
        cursor.take()
        projections.append(_projection(cursor))
    if cursor.word() != "FROM":
        raise SubsetError(f"expected FROM after the column list, found '{cursor.take().value}'")
    cursor.take()
    if cursor.take().value != _INPUT:
        raise SubsetError("FROM must name the single source() or ref() input")
    predicates: list[Predicate] = []
    if cursor.word() == "WHERE":
        cursor.take()
        predicates.append(_predicate(cursor))
        while cursor.word() == "AND":
            cursor.take()
            predicates.append(_predicate(cursor))
    if cursor.peek() is not None:
        raise SubsetError(f"unsupported '{cursor.take().value}' (only AND-joined comparisons may follow FROM)")
    names = [p.name for p in projections]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SubsetError(f"output column(s) {', '.join(duplicates)} appear more than once")
    return RunnerQuery("source" if kind == "source" else "model", name, tuple(projections), tuple(predicates))


def _projection(cursor: _Cursor) -> Projection:
    token = cursor.take()
    if token.value == "*":
        raise SubsetError("'*' is not supported: list the columns")
    column = _name(token)
    following = cursor.peek()
    if following is not None and following.value == "(":
        raise SubsetError(f"function '{token.value}' is not supported: only plain columns may be selected")
    if cursor.word() == "AS":
        cursor.take()
        return Projection(column, _name(cursor.take()))
    following = cursor.peek()
    if following is not None and following.ttype in T.Name and following.value != _INPUT:
        return Projection(column, _name(cursor.take()))
    return Projection(column, column)


def _predicate(cursor: _Cursor) -> Predicate:
    column = _name(cursor.take())
    operator = cursor.take()
    if operator.value.upper() == "IS":
        negated = cursor.word() in ("NOT", "NOT NULL")
        word = cursor.take().value.upper()
        if word == "NOT":
            word = cursor.take().value.upper()
            negated = True
        if " ".join(word.split()) not in ("NULL", "NOT NULL"):
            raise SubsetError(f"expected NULL after IS, found '{word}'")
        return Predicate(column, "IS NOT NULL" if negated else "IS NULL")
    if operator.value not in COMPARISONS:
        raise SubsetError(
            f"operator '{operator.value}' is not supported (use {' '.join(COMPARISONS)} or IS [NOT] NULL)"
        )
    value = _literal(cursor.take())
    return Predicate(column, "<>" if operator.value == "!=" else operator.value, value)
