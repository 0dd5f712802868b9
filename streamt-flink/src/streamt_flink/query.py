"""What the compiler needs to know about a model's SELECT, read from sqlparse tokens.

This is not a SQL parser: Flink's own planner is the judge of validity. It answers the few
questions that decide the generated DDL — which columns come out (and under which names), is the
query windowed, is it a non-windowed aggregation (then the sink must accept updates and its
primary key is the group keys), which input columns are referenced — and it only looks at the
outermost query for projections and GROUP BY.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any, NamedTuple, TypeVar

import attrs
from sqlparse import tokens as T
from sqlparse.engine.statement_splitter import StatementSplitter

from streamt_flink import sqllex

WINDOW_FUNCTIONS = frozenset({"TUMBLE", "HOP", "SESSION", "CUMULATE"})
# dsl.md section 9.2, step 4: the patterns that make a query stateful.
_STATEFUL_FUNCTIONS = WINDOW_FUNCTIONS | {
    "ROW_NUMBER", "LAG", "LEAD", "RANK", "DENSE_RANK", "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE",
    "COUNT", "SUM", "AVG", "MIN", "MAX", "COLLECT", "LISTAGG", "ML_PREDICT", "ML_EVALUATE",
}  # fmt: skip
_STATEFUL_KEYWORDS = frozenset({"GROUP BY", "ORDER BY", "JOIN", "DISTINCT"})
ML_FUNCTIONS = frozenset({"ML_PREDICT", "ML_EVALUATE"})

# Cheap pre-checks (a regex over the raw text) that let validation skip sqlparse for most models. Each
# is a superset test: a hit only means "parse to be sure", a miss means the answer is certainly no
# (whole words only, no "(" required: a comment between a name and its parenthesis must not hide it).
_MAYBE_STATEFUL_RE = re.compile(
    r"\b(?:GROUP|ORDER|JOIN|DISTINCT|" + "|".join(sorted(_STATEFUL_FUNCTIONS)) + r")\b",
    re.IGNORECASE,
)
_MAYBE_ML_RE = re.compile(r"\bML_(?:PREDICT|EVALUATE)\b", re.IGNORECASE)

_Part = TypeVar("_Part", tuple[Any, ...], frozenset[Any])

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
    # Column references as (qualifier or "", name); aliases as (alias, relation) from FROM/JOIN.
    references: frozenset[tuple[str, str]] = frozenset()
    aliases: frozenset[tuple[str, str]] = frozenset()
    # Columns used as the time argument of a window (TUMBLE(ts, ...), DESCRIPTOR(ts), TUMBLE_START(ts, ...)).
    time_columns: frozenset[str] = frozenset()
    outer_join: bool = False  # LEFT/RIGHT/FULL JOIN: emits retractions, so the sink must accept updates

    @property
    def select_star(self) -> bool:
        return any(p.expression == "*" or p.expression.endswith(".*") for p in self.projections)

    @property
    def updating(self) -> bool:
        """A non-windowed GROUP BY or an outer join emits updates: its sink must be an upsert table."""
        return (bool(self.group_by) and not self.windowed) or self.outer_join

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


class Lexeme(NamedTuple):
    """One token of a query: what ``analyze`` reads of an ``sqlparse.sql.Token`` (same values)."""

    ttype: Any
    value: str

    @property
    def normalized(self) -> str:
        """The upper-cased text for keywords, the text for other tokens, as sqlparse's Token has it."""
        return self.value.upper() if _KEYWORD[self.ttype] else self.value


# A (ttype, value) pair as a Lexeme without a Python-level call per token (a NamedTuple's own
# constructor is one): tuple.__new__ through map and partial runs in C.
_lexeme = partial(tuple.__new__, Lexeme)


class _Within(dict[Any, bool]):
    """``ttype in`` one of ``parents``, remembered per token type (sqlparse answers it in Python per call)."""

    def __init__(self, *parents: Any) -> None:
        super().__init__()
        self.parents = parents

    def __missing__(self, ttype: Any) -> bool:
        inside = self[ttype] = any(ttype in parent for parent in self.parents)
        return inside


_NAME, _BUILTIN, _KEYWORD = _Within(T.Name), _Within(T.Name.Builtin), _Within(T.Keyword)
_LITERAL, _DML, _SKIPPED = _Within(T.Literal), _Within(T.DML), _Within(T.Whitespace, T.Comment)


def _tokens(sql: str) -> list[Lexeme]:
    """The first statement's tokens, lexed and split but not grouped, without whitespace and comments.

    ``sqlparse.parse`` also groups tokens into identifiers, functions ... (four fifths of its time), and
    ``analyze`` flattens that tree again: the leaf tokens are the same either way (grouping only retypes
    an arithmetic ``*`` as an operator, a type no question here looks at). The tokens come from
    ``sqllex`` (sqlparse's lexer, one regex per token). sqlparse's statement splitter ends a statement
    only at a ``;`` or a ``GO`` keyword; without either the first statement is the whole text, so the
    splitter (and its Token objects) is needed only when one occurs.
    """
    pairs = sqllex.tokenize(sql)
    if not isinstance(pairs, list):  # sqlparse's own lexer (the fallback) yields them
        pairs = list(pairs)
    # A `;` token needs a ";" in the text and the GO test compares with "GO" exactly: most texts have neither.
    if (";" in sql or "GO" in sql) and any(_ends_statement(ttype, value) for ttype, value in pairs):
        statement = next(StatementSplitter().process(pairs), None)
        pairs = [(t.ttype, t.value) for t in statement.flatten()] if statement is not None else []
    return list(map(_lexeme, [pair for pair in pairs if not _SKIPPED[pair[0]]]))


def _ends_statement(ttype: Any, value: str) -> bool:
    """A ``;`` or a ``GO`` (``GO 2``) keyword, tested as the splitter tests them."""
    return (ttype is T.Punctuation and value == ";") or (ttype is T.Keyword and value.split()[0] == "GO")


def _keyword(token: Lexeme) -> str | None:
    return _keyword_text(token.value) if _KEYWORD[token.ttype] else None


@lru_cache(maxsize=1024)  # a handful of keywords, each met in every query
def _keyword_text(value: str) -> str:
    """A keyword token's text upper-cased, each run of spaces made one (``group  by`` -> ``GROUP BY``)."""
    return " ".join(value.upper().split())


def _split_top(items: list[Lexeme]) -> list[list[Lexeme]]:
    """``items`` cut at each top-level comma; no empty piece (``a,,b`` has two)."""
    depth, current = 0, list[Lexeme]()
    pieces = []
    for token in items:
        value = token.value
        if value == "(":
            depth += 1
        elif value == ")":
            depth -= 1
        if depth == 0 and value == "," and token.ttype is T.Punctuation:
            if current:
                pieces.append(current)
            current = []
        else:
            current.append(token)
    if current:
        pieces.append(current)
    return pieces


def _text(items: list[Lexeme]) -> str:
    if len(items) == 1:  # most select items and group keys: a column name
        return items[0].value
    out = ""
    for token in items:
        value = token.value
        if out and not (value in ",)." or out.endswith(("(", ".")) or (value == "(" and out[-1:].isalnum())):
            out += " "
        out += value
    return out


def _output_name(items: list[Lexeme]) -> str | None:
    last = items[-1]
    if _NAME[last.ttype] or _KEYWORD[last.ttype]:
        if len(items) >= 2 and _keyword(items[-2]) == "AS":
            return unquote(last.value)
        if len(items) == 1 or (len(items) >= 2 and items[-2].value == "."):
            return unquote(last.value)
        # `expr alias` without AS: the alias follows a closing parenthesis or a name.
        if items[-2].value == ")" or _NAME[items[-2].ttype] or _LITERAL[items[-2].ttype]:
            return unquote(last.value)
    return None


_SECTION_ENDS = frozenset({"FROM", "WHERE", "HAVING", "ORDER BY", "LIMIT", "WINDOW", "UNION"})  # at depth 0
_TIME_ARGUMENT_CALLS = frozenset(
    {f"{w}{suffix}" for w in ("TUMBLE", "HOP", "SESSION") for suffix in ("", "_START", "_END", "_ROWTIME")}
    | {"DESCRIPTOR"}
)


def _declares(previous: Lexeme | None) -> bool:
    """Does the name after ``previous`` declare an alias (``AS x``, ``expr x``, ``(...) x``, ``t x``)?"""
    if previous is None:
        return False
    if _KEYWORD[previous.ttype]:
        return _keyword(previous) == "AS"
    return previous.value == ")" or (_NAME[previous.ttype] and not _BUILTIN[previous.ttype]) or _LITERAL[previous.ttype]


def maybe_stateful(sql: str) -> bool:
    """False only when the text cannot hold a stateful clause or call (then ``analyze`` is not needed)."""
    return _MAYBE_STATEFUL_RE.search(sql) is not None


def maybe_ml(sql: str) -> bool:
    """False only when the text cannot call ``ML_PREDICT``/``ML_EVALUATE``."""
    return _MAYBE_ML_RE.search(sql) is not None


# One object per distinct part (an empty set, ``{SUM}``, the same SELECT list) instead of one per query: ``analyze``
# keeps every shape it returned, and most parts repeat across a project's models. Bounded, as it lives as long as
# the process; the parts are immutable, so sharing them changes no value.
_SHARED: dict[Any, Any] = {}
_SHARED_MAX = 4096


def _shared(part: _Part) -> _Part:
    found = _SHARED.get(part)
    if found is not None:
        return found  # type: ignore[no-any-return]
    if len(_SHARED) < _SHARED_MAX:
        _SHARED[part] = part
    return part


@lru_cache(maxsize=16384)
def analyze(sql: str) -> QueryShape:
    """The shape of ``sql``; cached: a compile asks for each job query twice (the job, the model's relation)."""
    tokens = _tokens(sql)
    depth = 0
    select: list[Lexeme] = []
    group: list[Lexeme] = []
    section = None
    functions: set[str] = set()
    references: set[tuple[str, str]] = set()
    aliases: set[tuple[str, str]] = set()
    time_columns: set[str] = set()
    keywords: set[str] = set()
    calls: list[str] = []  # the function each open parenthesis belongs to ("" for a plain group)
    expect_table = False
    table: str | None = None  # the relation just named in FROM/JOIN, waiting for its alias
    last = len(tokens) - 1
    for index, token in enumerate(tokens):
        ttype, value = token
        previous = tokens[index - 1] if index else None
        after = tokens[index + 1].value if index < last else None  # the next token's text
        if _KEYWORD[ttype]:
            keyword = _keyword_text(value)
            if after == "(":
                functions.add(value.upper())
            if keyword:
                keywords.add(keyword)
            if keyword in ("FROM", "TABLE") or keyword.endswith("JOIN"):
                expect_table, table = True, None
            elif keyword != "AS":
                expect_table, table = False, None
            if depth == 0:
                if section is None and _DML[ttype] and value.upper() == "SELECT":
                    section = "select"
                    continue
                if keyword in _SECTION_ENDS:
                    section = "done" if section in ("select", "group", "done") else section
                    continue
                if keyword == "GROUP BY" and section == "done":
                    section = "group"
                    continue
                if keyword in ("DISTINCT", "ALL") and section == "select" and not select:
                    continue
        elif _NAME[ttype]:
            if after == "(":
                functions.add(value.upper())
            elif not _BUILTIN[ttype] and after != ".":  # `t` in `t.col` qualifies, it is not a column
                name = unquote(value)
                if expect_table:
                    table, expect_table = name, False
                elif _declares(previous):
                    if table is not None:
                        aliases.add((name, table))
                elif previous is not None and previous.value == "." and index >= 2:
                    references.add((unquote(tokens[index - 2].value), name))
                else:
                    references.add(("", name))
                if calls and calls[-1] in _TIME_ARGUMENT_CALLS and previous is not None and previous.value == "(":
                    time_columns.add(name)
        elif value == "(":
            table = table if expect_table else None  # `FROM (` keeps waiting for the relation's alias
            expect_table = False
            depth += 1
            calls.append(previous.value.upper() if previous is not None and _NAME[previous.ttype] else "")
        elif value == ",":
            expect_table, table = False, None
        elif value == ")":
            depth -= 1
            if calls:
                calls.pop()
        if section == "select":
            select.append(token)
        elif section == "group":
            group.append(token)
    projections = _shared(tuple([Projection(_text(item), _output_name(item)) for item in _split_top(select)]))
    group_by = _shared(tuple([_text(item) for item in _split_top(group)]))
    windowed = bool(functions & WINDOW_FUNCTIONS)
    # JOIN comes lexed with its qualifier ("LEFT OUTER JOIN"), hence the suffix test.
    joins = [k for k in keywords if k.endswith(" JOIN")]
    clauses = bool(joins) or not keywords.isdisjoint(_STATEFUL_KEYWORDS)
    stateful = clauses or bool(functions & _STATEFUL_FUNCTIONS)
    return QueryShape(
        projections,
        group_by,
        windowed,
        stateful,
        _shared(frozenset(functions)),
        _shared(frozenset(name for _, name in references)),
        clauses,
        references=_shared(frozenset(references)),
        aliases=_shared(frozenset(aliases)),
        time_columns=_shared(frozenset(time_columns)),
        outer_join=any(k.split()[0] in ("LEFT", "RIGHT", "FULL") for k in joins),
    )


# Reserved words of Flink's (Calcite) parser that models commonly use as column aliases (``COUNT(*) AS
# count``, ``TUMBLE_END(...) AS hour``). The parser refuses them unquoted; quoting an identifier never
# changes its meaning in Flink (unquoted names keep their case), so ``AS <word>`` becomes ``AS `word```.
RESERVED_ALIASES = frozenset(
    """ALL ALLOW ARRAY AVG BEGIN BETWEEN BIGINT BINARY BOOLEAN BY CALL CASE CAST CHAR CHARACTER CHECK COLLECT
    COLUMN CONDITION COUNT CUBE CURRENT CURSOR DATE DAY DEC DECIMAL DEFAULT DESCRIBE DOUBLE ELEMENT END EVERY
    EXCEPT EXISTS FALSE FILTER FIRST_VALUE FLOAT FROM FUNCTION FUSION GROUP GROUPING HOUR INT INTEGER INTERVAL
    LANGUAGE LAST_VALUE LEVEL LOCAL MATCH MAX MEMBER MERGE METHOD MIN MINUTE MOD MODULE MONTH NULL NUMERIC ORDER
    OVER PARTITION PERCENT PERIOD POSITION POWER RANGE RANK REAL RESULT ROW ROWS SECOND SESSION SIZE SMALLINT
    START SUM SYSTEM SYSTEM_USER TABLE TIME TIMESTAMP TINYINT TO TRUE TRUNCATE UNKNOWN UPPER USER VALUE VALUES
    VARCHAR WINDOW YEAR""".split()  # noqa: SIM905 - a word list reads better than 100 quoted strings
)
_LEX_RE = re.compile(r"'(?:[^']|'')*'|`(?:[^`]|``)*`|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/|\w+|\s+|.", re.DOTALL)
_CAST_CALLS = frozenset({"CAST", "TRY_CAST"})
_AS_WORD_RE = re.compile(r"(?i)\bAS\s+(\w+)")
_WORD_RE = re.compile(r"\w+")


def quote_reserved_aliases(sql: str) -> str:
    """``expr AS count`` -> ``expr AS `count``` for reserved words (not inside ``CAST(x AS type)``)."""
    if RESERVED_ALIASES.isdisjoint(_AS_WORD_RE.findall(sql.upper())):
        return sql  # the common case: nothing to rewrite, no lexing
    pieces = _LEX_RE.findall(sql)
    calls: list[str] = []
    last_word = ""
    after_as = False
    for i, piece in enumerate(pieces):
        if piece.isspace() or piece.startswith(("--", "/*")):
            continue
        upper = piece.upper()
        if after_as and upper in RESERVED_ALIASES and (not calls or calls[-1] not in _CAST_CALLS):
            pieces[i] = f"`{piece}`"
        after_as = upper == "AS"
        if piece == "(":
            calls.append(last_word)
        elif piece == ")" and calls:
            calls.pop()
        last_word = upper if _WORD_RE.fullmatch(piece) else ""
    return "".join(pieces)
