"""What the compiler needs to know about a model's SELECT, read from sqlparse tokens.

This is not a SQL parser: Flink's own planner is the judge of validity. It answers the few
questions that decide the generated DDL — which columns come out (and under which names), is the
query windowed, is it a non-windowed aggregation (then the sink must accept updates and its
primary key is the group keys), which input columns are referenced — and it only looks at the
outermost query for projections and GROUP BY.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import attrs
import sqlparse
from sqlparse import tokens as T

WINDOW_FUNCTIONS = frozenset({"TUMBLE", "HOP", "SESSION", "CUMULATE"})
# dsl.md section 9.2, step 4: the patterns that make a query stateful.
_STATEFUL_FUNCTIONS = WINDOW_FUNCTIONS | {
    "ROW_NUMBER", "LAG", "LEAD", "RANK", "DENSE_RANK", "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE",
    "COUNT", "SUM", "AVG", "MIN", "MAX", "COLLECT", "LISTAGG", "ML_PREDICT", "ML_EVALUATE",
}  # fmt: skip
_STATEFUL_KEYWORDS = ("GROUP BY", "ORDER BY", "JOIN", "DISTINCT")
ML_FUNCTIONS = frozenset({"ML_PREDICT", "ML_EVALUATE"})

_RELATION_RE = re.compile(r"""\{\{-?\s*(source|ref)\(\s*(['"])([^'"]+)\2\s*\)\s*-?\}\}""")


@attrs.frozen
class Projection:
    """One item of the outer SELECT list: its text and the name of the column it produces."""

    expression: str
    name: str | None


@attrs.frozen
class QueryShape:
    projections: tuple[Projection, ...]
    group_by: tuple[str, ...]
    windowed: bool
    stateful: bool
    functions: frozenset[str]
    identifiers: frozenset[str]
    stateful_clauses: bool = False  # GROUP BY, ORDER BY, JOIN or DISTINCT

    @property
    def select_star(self) -> bool:
        return any(p.expression == "*" or p.expression.endswith(".*") for p in self.projections)

    @property
    def updating(self) -> bool:
        """A non-windowed GROUP BY emits updates: its sink must be an upsert table."""
        return bool(self.group_by) and not self.windowed

    @property
    def unbounded_state(self) -> bool:
        """State that grows with the key space unless a TTL expires it (ML calls keep none)."""
        if self.windowed:
            return False
        return self.stateful_clauses or bool(self.functions & (_STATEFUL_FUNCTIONS - ML_FUNCTIONS))

    @property
    def uses_ml(self) -> bool:
        return bool(self.functions & ML_FUNCTIONS)


def substitute_relations(sql: str, table_for: Callable[[str, str], str]) -> str:
    """Replace ``{{ source("n") }}`` / ``{{ ref("n") }}`` with ``table_for(kind, name)``."""
    return _RELATION_RE.sub(lambda m: table_for(m.group(1), m.group(3)), sql)


def unquote(name: str) -> str:
    if len(name) >= 2 and name[0] == name[-1] and name[0] in '`"':
        return name[1:-1].replace(name[0] * 2, name[0])
    return name


def _tokens(sql: str) -> list[sqlparse.sql.Token]:
    statements = sqlparse.parse(sql)
    if not statements:
        return []
    return [t for t in statements[0].flatten() if not t.is_whitespace and t.ttype not in T.Comment]


def _keyword(token: sqlparse.sql.Token) -> str | None:
    return " ".join(token.normalized.upper().split()) if token.ttype in T.Keyword else None


def _split_top(items: list[sqlparse.sql.Token]) -> Iterator[list[sqlparse.sql.Token]]:
    depth, current = 0, list[sqlparse.sql.Token]()
    for token in items:
        if token.value == "(":
            depth += 1
        elif token.value == ")":
            depth -= 1
        if depth == 0 and token.ttype is T.Punctuation and token.value == ",":
            yield current
            current = []
        else:
            current.append(token)
    if current:
        yield current


def _text(items: list[sqlparse.sql.Token]) -> str:
    out = ""
    for token in items:
        value = token.value
        if out and not (value in ",)." or out.endswith(("(", ".")) or (value == "(" and out[-1:].isalnum())):
            out += " "
        out += value
    return out


def _output_name(items: list[sqlparse.sql.Token]) -> str | None:
    last = items[-1]
    if last.ttype in T.Name or last.ttype in T.Keyword:
        if len(items) >= 2 and _keyword(items[-2]) == "AS":
            return unquote(last.value)
        if len(items) == 1 or (len(items) >= 2 and items[-2].value == "."):
            return unquote(last.value)
        # `expr alias` without AS: the alias follows a closing parenthesis or a name.
        if items[-2].value == ")" or items[-2].ttype in T.Name or items[-2].ttype in T.Literal:
            return unquote(last.value)
    return None


def _qualifier(following: sqlparse.sql.Token | None) -> bool:
    """``t`` in ``t.col`` qualifies a column: only the column counts as a referenced name."""
    return following is not None and following.value == "."


def analyze(sql: str) -> QueryShape:
    tokens = _tokens(sql)
    depth = 0
    select: list[sqlparse.sql.Token] = []
    group: list[sqlparse.sql.Token] = []
    section = None
    functions: set[str] = set()
    identifiers: set[str] = set()
    keywords: set[str] = set()
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        is_call = following is not None and following.value == "("
        if is_call and (token.ttype in T.Name or token.ttype in T.Keyword):
            functions.add(token.value.upper())
        elif token.ttype in T.Name and token.ttype not in T.Name.Builtin and not _qualifier(following):
            identifiers.add(unquote(token.value))
        keyword = _keyword(token)
        if keyword:
            keywords.add(keyword)
        if token.value == "(":
            depth += 1
        elif token.value == ")":
            depth -= 1
        if depth == 0 and token.ttype in T.DML and token.value.upper() == "SELECT" and section is None:
            section = "select"
            continue
        if depth == 0 and keyword in ("FROM", "WHERE", "HAVING", "ORDER BY", "LIMIT", "WINDOW", "UNION"):
            section = "done" if section in ("select", "group", "done") else section
            continue
        if depth == 0 and keyword == "GROUP BY" and section == "done":
            section = "group"
            continue
        if section == "select" and not (depth == 0 and keyword in ("DISTINCT", "ALL") and not select):
            select.append(token)
        elif section == "group":
            group.append(token)
    projections = tuple(Projection(_text(item), _output_name(item)) for item in _split_top(select) if item)
    group_by = tuple(_text(item) for item in _split_top(group) if item)
    windowed = bool(functions & WINDOW_FUNCTIONS)
    # JOIN comes lexed with its qualifier ("LEFT OUTER JOIN"), hence the suffix test.
    clauses = any(k in _STATEFUL_KEYWORDS or k.endswith(" JOIN") for k in keywords)
    stateful = clauses or bool(functions & _STATEFUL_FUNCTIONS)
    return QueryShape(projections, group_by, windowed, stateful, frozenset(functions), frozenset(identifiers), clauses)
