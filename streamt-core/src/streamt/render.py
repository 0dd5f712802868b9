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

import attrs
import jinja2

from streamt import jinja_sandbox
from streamt.jinja_sandbox import MAX_SQL_CHARS
from streamt.refs import Ref

_SIMPLE_CALL = re.compile(r"""\{\{-?\s*(source|ref)\s*\(\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\)\s*-?\}\}""")
_JINJA_MARKERS = ("{{", "{%", "{#")
# Rendered SQL longer than this is no real query (and would be copied into every artifact).


@attrs.frozen
class Rendered:
    """``sql`` is ``None`` when rendering failed; ``error`` then says why (``line`` is 1-based)."""

    sql: str | None
    dependencies: tuple[Ref, ...]
    error: str | None = None
    error_kind: str | None = None  # "syntax", "env", "config", "limit" (a sandbox resource cap)
    line: int | None = None
    missing_env: tuple[str, ...] = ()


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
    if not any(marker in substituted for marker in _JINJA_MARKERS):
        if len(substituted) > MAX_SQL_CHARS:
            message = f"resource limit: the rendered SQL is longer than {MAX_SQL_CHARS:,} characters"
            return Rendered(None, tuple(deps), message, "limit")
        return Rendered(substituted, tuple(deps))
    deps.clear()
    seen.clear()
    return _render_jinja(sql, record, env, config, deps)


class _EnvMissing(Exception):
    pass


class _ConfigMissing(Exception):
    pass


def _render_jinja(
    sql: str,
    record: Callable[[str, str], str],
    env: Mapping[str, str],
    config: Callable[[str], Any],
    deps: list[Ref],
) -> Rendered:
    missing: list[str] = []

    def env_fn(name: Any, fallback: Any = None) -> str:
        value = env.get(str(name))
        if value is None:
            if fallback is not None:
                return str(fallback)
            missing.append(str(name))
            raise _EnvMissing(str(name))
        return value

    def config_fn(path: Any) -> Any:
        try:
            return config(str(path))
        except KeyError:
            raise _ConfigMissing(str(path)) from None

    environment = jinja_sandbox.build(
        {
            "source": lambda name: record("source", str(name)),
            "ref": lambda name: record("model", str(name)),
            "env": env_fn,
            "config": config_fn,
        }
    )
    try:
        text = jinja_sandbox.render(environment, sql)
    except jinja2.TemplateSyntaxError as exc:
        return Rendered(None, tuple(deps), exc.message or "syntax error", "syntax", exc.lineno)
    except _EnvMissing:
        return Rendered(None, tuple(deps), "environment variable not set", "env", None, tuple(missing))
    except _ConfigMissing as exc:
        return Rendered(None, tuple(deps), f"unknown config path '{exc}'", "config")
    except jinja2.UndefinedError as exc:
        return Rendered(None, tuple(deps), f"{exc.message} (only source, ref, env and config exist)", "syntax")
    except jinja_sandbox.LimitExceeded as exc:
        return Rendered(None, tuple(deps), f"resource limit: {exc}", "limit")
    except (RecursionError, MemoryError, SyntaxError):
        # Last resort behind the caps: recursion (macros), or code Python cannot compile.
        return Rendered(None, tuple(deps), "the template is too deeply nested or too large to render", "limit")
    except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, jinja2.sandbox.SecurityError) as exc:
        return Rendered(None, tuple(deps), str(exc) or type(exc).__name__, "syntax")
    return Rendered(text, tuple(deps))
