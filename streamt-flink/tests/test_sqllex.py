"""``sqllex.tokenize`` yields exactly what sqlparse's lexer yields (the compiled bytes depend on it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_material import SHARED
from sqlparse import lexer
from sqlparse import tokens as T
from sqlparse.engine import FilterStack
from streamt_flink import sqllex
from streamt_flink.query import _tokens

_ROOT = Path(__file__).resolve().parents[2]
_CORPORA = [_ROOT / "examples", SHARED / "spec" / "examples", SHARED / "compat" / "upstream-projects"]


def _sql_values(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "sql" and isinstance(v, str)] + [
            s for v in node.values() for s in _sql_values(v)
        ]
    if isinstance(node, list):
        return [s for v in node for s in _sql_values(v)]
    return []


def _project_sql() -> list[str]:
    found: list[str] = []
    for corpus in _CORPORA:
        for path in sorted(corpus.rglob("*.y*ml")) if corpus.is_dir() else []:
            try:
                found += _sql_values(yaml.safe_load(path.read_text(encoding="utf-8")))
            except (yaml.YAMLError, UnicodeDecodeError):
                continue
        found += [p.read_text(encoding="utf-8") for p in sorted(corpus.rglob("*.sql"))] if corpus.is_dir() else []
    return found


def _same(text: str) -> None:
    assert list(sqllex.tokenize(text)) == list(lexer.tokenize(text)), text
    # and what ``analyze`` reads: the first statement's leaves as sqlparse's own pipeline splits them
    statement = next(FilterStack().run(text), None)
    leaves = [t for t in statement.flatten() if not t.is_whitespace and t.ttype not in T.Comment] if statement else []
    assert [(t.ttype, t.value, t.normalized) for t in leaves] == [(*t, t.normalized) for t in _tokens(text)], text


def test_the_combined_rules_are_in_use() -> None:
    # Without this the comparisons below would compare sqlparse with itself.
    assert sqllex._COMBINED is not None
    assert isinstance(sqllex.tokenize("SELECT 1"), list)


def test_single_character_tokens_are_read_from_the_table() -> None:
    # sqlparse's rules as locked take a space, a newline, parentheses and commas one character at a time;
    # the comparisons below then exercise the table, not only the pattern.
    assert sqllex._COMBINED is not None
    assert set(sqllex._COMBINED.single) == set(" \n(),")
    assert sqllex._COMBINED.single[" "] is T.Text.Whitespace
    for text in ("a  ,\n(b)", "x.(y)", "`a`(1,2)", "'s' ,-- c\n)", "\r\n (", "f(\n)"):
        _same(text)


def test_project_sql_lexes_the_same() -> None:
    texts = _project_sql()
    assert len(texts) >= 5  # the repository's examples at least
    for text in texts:
        _same(text)


def test_hand_picked_corners_lex_the_same() -> None:
    for text in [
        "",
        "SELECT a * b AS c, * FROM `t` AS x -- note\nWHERE x.k <> 'GROUP BY' AND v > -1.5e3",
        "SELECT k, COUNT(*) AS `count` FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k",
        "SELECT CASE WHEN v IS NULL THEN 0 ELSE v END FROM a LEFT OUTER JOIN b ON a.k = b.k; SELECT 2",
        "select x.y, 0x1F, 1e-3, .5, 3., 'it''s', \"q\"\"q\", [a], @v, :p, ?, %s, %(n)s, \\cmd ; GO 2",
        "SELECT a::int, b := 1, c ->> 'k', d #> e, ´x´, NOT NULL, ORDER  BY a DESC NULLS LAST, UNION ALL",
        "SELECT ÄÖ, straße, 名前 FROM t WHERE a NOT ILIKE 'x' AND b REGEXP BINARY 'y'\r\n\tLIMIT 5",
        "/* block */ SELECT $$dollar$$, $tag$x$tag$ FROM t",  # goes to sqlparse itself: still the same
        "SELECT 'unterminated, ` and \" and \x00 and \u2028",
        "SELECT 1; SELECT 2",
        "  ;  SELECT 2",
        "CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END; SELECT 3",
        "SELECT 1 GO 2 SELECT 2",
        "go\nSELECT 2",
        "-- only a comment",
    ]:
        _same(text)


_PIECES = st.sampled_from(
    [
        "SELECT", "select", "FROM", "WHERE", "GROUP BY", "group\tby", "JOIN", "LEFT OUTER JOIN", "AS", "x", "t.c",
        "`q`", "'s'", "''", "\"d\"", "(", ")", ",", ";", ".", "*", "-", "--c\n", "#", "# c", "1", "-2", "3.5",
        "1e5", "0xFF", " ", "\n", "\r\n", "\t", "::", ":=", "?", "$", "$1", "/*", "*/", "[a]", "´", "é", "END IF",
        "BEGIN", "GO", " GO 2", "CREATE OR REPLACE", "NOT NULL", "<>", ">=", "||", "@>", "%s", "\\",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(_PIECES | st.text(max_size=3), max_size=25).map("".join))
def test_fuzzed_text_lexes_the_same(text: str) -> None:
    _same(text)
