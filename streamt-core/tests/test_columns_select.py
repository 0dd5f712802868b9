"""The select-list reader without sqlparse answers exactly what sqlparse's grouping answers, or declines.

``streamt.sql.columns.projection`` asks ``simple_select_items`` first and sqlparse only when it
declines, so every answer it gives must be sqlparse's: compared here over the SQL of every model of
the compatibility corpus, the spec examples and the repository's examples, over generated select
lists (seeded: the same cases every run) and over every word sqlparse's lexer treats specially.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from shared_material import SHARED
from sqlparse import keywords
from streamt.project import load_project
from streamt.sql.columns import _parsed_select_items, projection
from streamt.sql.columns_select import SelectItem, simple_select_items

REPO = Path(__file__).resolve().parents[2]


def corpus_sql() -> list[str]:
    roots = [SHARED / "compat" / "upstream-projects", SHARED / "spec" / "examples", REPO / "examples"]
    found: set[str] = set()
    for root in roots:
        for project_dir in sorted(p for p in root.iterdir() if (p / "stream_project.yml").is_file()):
            try:
                project = load_project(str(project_dir), None, lazy_secrets=True)
            except Exception:  # the corpus holds invalid projects on purpose: their SQL is never read
                continue
            found |= {m.rendered_sql for m in project.models if m.rendered_sql}
    return sorted(found)


def agree(sql: str) -> bool:
    """True when the fast reader answered (and then it must equal sqlparse's reading)."""
    fast = simple_select_items(sql)
    if fast is None:
        return False
    assert fast == _parsed_select_items(sql), sql
    return True


def test_every_model_of_the_corpus_and_examples_reads_the_same() -> None:
    sqls = corpus_sql()
    assert len(sqls) > 300, "the corpus is missing: set STREAMT_SHARED_DIR"
    answered = sum(agree(sql) for sql in sqls)
    # Most real select lists are plain: if the reader declined them all it would prove nothing.
    assert answered > len(sqls) * 0.6, (answered, len(sqls))


NAMES = [
    "id",
    "amount",
    "a",
    "t.a",
    "t.b.c",
    "type",
    "x1",
    "_x",
    "FROMX",
    "ts",
    "e",
    "t.*",
    "window_start",
    "type.a",
    "count",
    "_t.a",
    "t.type",
    "`q`",
    '"dq"',
    "t . a",
    "é",
    "end",
    "as",
    "null",
    "x$y",
    "[b]",
]
LITERALS = ["1", "2.5", "'x'", "'it''s'", "'a,b'", "'FROM'", "''", "'('", "-1", "1e5", "1.", ".5", "'a\\'b'", "0x1F"]
CALLS = ["f(x)", "COUNT(*)", "CAST(x AS INT)", "SUM(a)", "TUMBLE_START(ts, INTERVAL '1' MINUTE)", "COALESCE(a, 'x')",
         "f(a > 1)", "(a + b)", "_f(x)", "type(x)", "f(x)(y)", "f(a::int)", "f(a || b)", "f()", "f((a))", "as(x)",
         "case(x)", "(SELECT 1)", "f (x)", "t.f(x)", "f(x) OVER (PARTITION BY a)", "DATE '2020-01-01'", "f(a % b)",
         "CASE WHEN a THEN 1 END", "f(-1)", "f(?)", "f(x /* ) */)"]  # fmt: skip
OPERATORS = ["+", "-", "*", "/", "%", "||", "=", "::", "/*"]
SPACES = [" ", "", "  ", "\n", "\t"]
ALIASES = ["", " AS n", " n", " as N", " AS  n", " AS\nn", " AS type", " AS `q`", "AS n", " AS", " desc", " nulls",
           " AS from", " key", " e", " AS 1", " count", " FROMX"]  # fmt: skip
PREFIXES = ["SELECT ", "select\n", "  SELECT ", "SELECT DISTINCT ", "SELECT ALL ", "WITH x AS (SELECT 1) SELECT "]
SEPARATORS = [", ", ",", " ,", ",\n"]
SUFFIXES = [
    " FROM t",
    "\nFROM t",
    "FROM t",
    " from t WHERE x > 1",
    "",
    " ",
    " FROM (SELECT a FROM u)",
    ";",
    " FROM t; SELECT b FROM u",
    " FROM t -- c",
    " WHERE a",
    " UNION SELECT 1",
    " FROM t GROUP BY a",
    " /* c */ FROM t",
]


def generated(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)

    def operand() -> str:
        return rnd.choice(rnd.choices([NAMES, LITERALS, CALLS], weights=[5, 2, 3])[0])

    def item() -> str:
        if rnd.random() < 0.05:
            return "*"
        text = operand()
        while rnd.random() < 0.3:
            text += rnd.choice(SPACES) + rnd.choice(OPERATORS) + rnd.choice(SPACES) + operand()
        return text + (rnd.choice(ALIASES) if rnd.random() < 0.6 else "")

    return [
        rnd.choice(PREFIXES)
        + rnd.choice(SEPARATORS).join(item() for _ in range(rnd.randint(1, 4)))
        + rnd.choice(SUFFIXES)
        for _ in range(count)
    ]


@pytest.mark.parametrize("seed", range(4))
def test_generated_select_lists_read_the_same(seed: int) -> None:
    sqls = generated(seed, 8000)
    assert sum(agree(sql) for sql in sqls) > 200  # enough answered that the comparison means something


def special_words() -> list[str]:
    """Every keyword of sqlparse's tables and every word its lexer's patterns spell out."""
    words = {word for name in dir(keywords) if name.startswith("KEYWORDS") for word in getattr(keywords, name)}
    for pattern, _ in keywords.SQL_REGEX:
        words |= set(re.findall(r"[A-Z][A-Z_]+", pattern))
    return sorted(w for w in words if re.fullmatch(r"[A-Z_][A-Z0-9_]*", w))


@pytest.mark.parametrize("case", ["lower", "upper"])
def test_words_sqlparse_treats_specially_read_the_same_in_every_position(case: str) -> None:
    shapes = ["SELECT {w} FROM t", "SELECT a {w} FROM t", "SELECT a AS {w} FROM t", "SELECT {w}.a FROM t",
              "SELECT {w}(x) AS y FROM t", "SELECT t.{w} FROM t", "SELECT a, {w}, b FROM t", "SELECT {w}.* FROM t",
              "SELECT f(x) {w} FROM t", "SELECT a + {w} AS y FROM t"]  # fmt: skip
    for word in special_words():
        word = word.lower() if case == "lower" else word
        for shape in shapes:
            agree(shape.format(w=word))


def test_the_quirks_of_sqlparse_stay_sqlparse_s() -> None:
    # A trailing name after a literal is no alias to sqlparse, and "desc" is a sort order: declined
    # by the fast reader, so projection keeps answering what it answered before.
    assert simple_select_items("SELECT 'x' n FROM t") is None
    assert _parsed_select_items("SELECT 'x' n FROM t") == [SelectItem("'x'", None)]
    assert simple_select_items("SELECT a desc FROM t") is None
    assert _parsed_select_items("SELECT a desc FROM t") == [SelectItem("a desc", "a")]
    assert simple_select_items("SELECT timestamp, date AS d FROM t") is None
    assert projection("SELECT timestamp, date AS d FROM t") is not None


def test_the_common_shapes_are_read_without_sqlparse() -> None:
    sql = "SELECT id, t.amount AS total, COUNT(*) n, CAST(x AS INT) AS y, a + 1 AS z FROM `bench.m` WHERE amount > 2"
    assert simple_select_items(sql) == [
        SelectItem("id", None),
        SelectItem("t.amount AS total", "total"),
        SelectItem("COUNT(*) n", "n"),
        SelectItem("CAST(x AS INT) AS y", "y"),
        SelectItem("a + 1 AS z", "z"),
    ]
    assert agree(sql)
