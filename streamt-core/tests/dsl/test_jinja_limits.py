"""Hostile SQL templates: every resource cap ends in a structured E105, quickly, never a hang or MemoryError."""

from __future__ import annotations

import sys
import time

import pytest
from streamt.render import render_sql

L10 = "{% set l = [1,2,3,4,5,6,7,8,9,10] %}"
HOSTILE = {
    "string times huge": ("{{ 'x' * 10**10 }}", "value longer than 1,000,000"),
    "huge times string": ("{{ 10**10 * 'x' }}", "value longer than 1,000,000"),
    "list times huge": ("{% for i in [1] * 1000000000 %}{% endfor %}", "value longer than 1,000,000"),
    "huge power": ("{{ 2 ** 100000000 }}", "number larger than 4096 bits"),
    "repeated squaring": ("{% set a = 2**4000 %}{% set a = a*a %}{{ a }}", "number larger than 4096 bits"),
    "doubling with ~": ("{% set a = 'x' * 1000 %}" + "{% set a = a ~ a %}" * 40 + "{{ a }}", "value longer"),
    "doubling with +": ("{% set a = 'x' * 1000 %}" + "{% set a = a + a %}" * 40 + "{{ a }}", "value longer"),
    "nested loops": (L10 + "{% for a in l %}" * 9 + "x" + "{% endfor %}" * 9, "more than 100,000 loop"),
    "empty nested loops": (L10 + "{% for a in l %}" * 9 + "{% endfor %}" * 9, "more than 100,000 loop"),
    # 100,000 macro calls take about as long as the 2 s deadline, so which cap fires first depends on
    # the machine's load: either refusal is the right one.
    "branching macro": (
        "{% macro f(n) %}{% if n %}{{ f(n-1) }}{{ f(n-1) }}{% endif %}{% endmacro %}{{ f(60) }}",
        ("more than 100,000 loop", "takes longer than 2 s"),
    ),
    "unbounded recursion": ("{% macro f(n) %}{{ f(n+1) }}{% endmacro %}{{ f(0) }}", "too deeply nested"),
    "deeply nested blocks": ("{% if 1 %}" * 30 + "x" + "{% endif %}" * 30, "nests blocks more than 10 deep"),
    "deeply nested expression": ("{{ " + "(" * 300 + "1" + ")" * 300 + " }}", "nests expressions more than 100 deep"),
    "format width": ("{{ '{:>1000000000}'.format('x') }}", "attribute 'format' of 'str' object is unsafe"),
    "center width": ("{{ 'x'.center(1000000000) }}", "attribute 'center' of 'str' object is unsafe"),
    "percent width": ("{{ '%1000000000s' % 'x' }}", "string formatting with % is not available"),
    "output over 1 MB": (
        "{% for i in [1,2,3,4,5,6,7,8,9,10] %}{% for j in [1,2,3,4,5,6,7,8,9,10] %}"
        "{% for k in [1,2,3,4,5,6,7,8,9,10] %}" + "x" * 2000 + "{% endfor %}{% endfor %}{% endfor %}",
        "rendered SQL is longer than 1,000,000",
    ),
    "plain SQL over 1 MB": ("SELECT '" + "x" * 1_000_001 + "' FROM {{ source('s') }}", "longer than 1,000,000"),
}


def _names_a_cap(message: str, fragment: str | tuple[str, ...]) -> bool:
    return any(f in message for f in ((fragment,) if isinstance(fragment, str) else fragment))


def _render(sql: str):  # type: ignore[no-untyped-def]
    return render_sql(sql, lambda _kind, name: name, {"X": "a"}, lambda _path: [1, 2])


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_template_is_refused_quickly(case: str) -> None:
    sql, fragment = HOSTILE[case]
    started = time.monotonic()
    rendered = _render(sql)
    assert time.monotonic() - started < 3  # caps, not exhaustion: the 2 s render deadline is the worst case
    assert rendered.sql is None and rendered.error is not None
    assert _names_a_cap(rendered.error, fragment)


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT {{ env('X') ~ '_b' }} FROM {{ source('s') }}", "SELECT a_b FROM s"),
        ("{% if 0 %}a" + "{% elif 0 %}b" * 30 + "{% else %}ok{% endif %}", "ok"),  # elif chains are flat
        ("{% for i in config('x') %}{{ i }},{% endfor %}", "1,2,"),
        ("{{ 'ab' * 3 }} {{ 2 ** 10 }} {{ 'A'.lower() }}", "ababab 1024 a"),
        ("{% for i in [1,2,3] %}{% for j in [1,2] %}{{ i * j }}{% endfor %}{% endfor %}", "122436"),
    ],
)
def test_ordinary_templates_still_render(sql: str, expected: str) -> None:
    rendered = _render(sql)
    assert rendered.error is None and rendered.sql == expected


@pytest.mark.parametrize("mode", ["json", "text"])
@pytest.mark.parametrize("case", ["string times huge", "branching macro", "deeply nested blocks", "output over 1 MB"])
def test_hostile_template_is_e105_through_the_cli(case: str, mode: str, streamt_project, cli) -> None:
    sql, fragment = HOSTILE[case]
    files = {
        "stream_project.yml": "project: {name: demo}\nruntime: {kafka: {bootstrap_servers: 'k:9092'}, "
        "flink: {clusters: {local: {rest_url: 'http://f:8081'}}}}\n",
        "models/bad.yml": {"models": [{"name": "bad", "materialized": "flink", "sql": sql}]},
    }
    started = time.monotonic()
    run = cli(mode, "validate", "-p", streamt_project(files))
    assert time.monotonic() - started < 5
    assert run.exit_code == 1 and "Traceback" not in run.text and "MemoryError" not in run.text
    if mode == "json":
        errors = run.envelope["errors"]
        assert [e["code"] for e in errors] == ["E105_JINJA_SYNTAX_ERROR"]
        assert _names_a_cap(errors[0]["message"], fragment) and "model 'bad'" in errors[0]["message"]
        assert errors[0]["suggestion"]
    else:
        assert "E105_JINJA_SYNTAX_ERROR" in run.stderr and _names_a_cap(run.stderr, fragment)


def test_deep_parentheses_are_refused_whatever_the_recursion_limit() -> None:
    # An embedding process may raise the limit (mypy's API does, for the rest of a test run); the cap
    # must not depend on Jinja's parser overflowing Python's stack.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(50_000)
    try:
        rendered = _render("{{ " + "(" * 300 + "1" + ")" * 300 + " }}")
    finally:
        sys.setrecursionlimit(limit)
    assert rendered.sql is None and "nests expressions more than 100 deep" in (rendered.error or "")
    # SQL's own parentheses and a bracket inside a Jinja string are not Jinja nesting.
    ordinary = _render("SELECT " + "(" * 120 + "1" + ")" * 120 + " FROM {{ source('s') }} WHERE x = '{{ '(' * 3 }}'")
    assert ordinary.error is None and ordinary.sql is not None and ordinary.sql.endswith("WHERE x = '((('")
