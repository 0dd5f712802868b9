"""Rendering model SQL (dsl.md §10): ``source()``, ``ref()``, ``env()``, ``config()``.

Dependencies are the calls the template actually makes. Most model SQL uses nothing but literal
``{{ source("x") }}`` / ``{{ ref("x") }}`` calls; those are substituted directly, which is exactly
what Jinja would produce and avoids compiling thousands of templates. Anything else goes through a
sandboxed Jinja environment where only the four functions exist and resource use is capped
(``streamt.jinja_sandbox``): a hostile template yields an E105 finding, never a hang or MemoryError.

``env()`` renders what ``PublishedVariables`` gives it: the value of a variable the project declares
non-secret (``project.non_secret_env``), else the variable's ``${NAME}`` placeholder. The rendered
SQL is what ``show``, the docs site, ``generated/`` and ``manifest.json`` publish, so a value read
from the environment reaches none of them; the deployer resolves the placeholder in memory (dsl.md
section 2.2: placeholders in model SQL are resolved at apply time).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from streamt.refs import Ref
from streamt.rendered import MAX_SQL_CHARS, Rendered

VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PublishedVariables(Mapping[str, str]):
    """The variables ``env()`` renders: a set variable not declared non-secret is its ``${NAME}`` placeholder."""

    def __init__(self, variables: Mapping[str, str], non_secret: Iterable[str]) -> None:
        self._variables = variables
        self._non_secret = frozenset(non_secret)

    def __getitem__(self, name: str) -> str:
        value = self._variables[name]
        return value if name in self._non_secret else f"${{{name}}}"

    def __iter__(self) -> Iterator[str]:
        return iter(self._variables)

    def __len__(self) -> int:
        return len(self._variables)


_SIMPLE_CALL = re.compile(r"""\{\{-?\s*(source|ref)\s*\(\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\)\s*-?\}\}""")


def render_sql(
    sql: str,
    resolve: Callable[[str, str], str],
    env: Mapping[str, str],
    config: Callable[[str], Any],
) -> Rendered:
    """Render ``sql``; ``resolve(kind, name)`` returns the physical name for ``source``/``model``."""
    deps: list[Ref] = []
    seen: set[tuple[str, str]] = set()

    def record(kind: str, name: str) -> str:
        key = (kind, name)
        if key not in seen:
            seen.add(key)
            deps.append(Ref(source=name) if kind == "source" else Ref(ref=name))
        return resolve(kind, name)

    def simple(match: re.Match[str]) -> str:
        kind = "source" if match.group(1) == "source" else "model"
        return record(kind, match.group(2) if match.group(2) is not None else match.group(3))

    substituted = _SIMPLE_CALL.sub(simple, sql)
    if "{{" not in substituted and "{%" not in substituted and "{#" not in substituted:  # no Jinja left
        if len(substituted) > MAX_SQL_CHARS:
            message = f"resource limit: the rendered SQL is longer than {MAX_SQL_CHARS:,} characters"
            return Rendered(None, tuple(deps), message, "limit")
        return Rendered(substituted, tuple(deps))
    deps.clear()
    seen.clear()
    # Imported here, on first need: Jinja costs every load ~30-40 ms to import, and most model SQL
    # has nothing but literal source()/ref() calls.
    from streamt.render_jinja import render_jinja

    return render_jinja(sql, record, env, config, deps)
