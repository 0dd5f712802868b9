"""Rendering model SQL (dsl.md §10): ``source()``, ``ref()``, ``env()``, ``config()``.

Dependencies are the calls the template actually makes. Most model SQL uses nothing but literal
``{{ source("x") }}`` / ``{{ ref("x") }}`` calls; those are substituted directly, which is exactly
what Jinja would produce and avoids compiling thousands of templates. Anything else goes through a
sandboxed Jinja environment where only the four functions exist and resource use is capped
(``streamt.jinja_sandbox``): a hostile template yields an E105 finding, never a hang or MemoryError.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from streamt.refs import Ref
from streamt.rendered import MAX_SQL_CHARS, Rendered

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
