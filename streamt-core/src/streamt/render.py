"""Rendering model SQL (dsl.md §10): ``source()``, ``ref()``, ``env()``, ``config()``.

Dependencies are the calls the template actually makes. Most model SQL uses nothing but literal
``{{ source("x") }}`` / ``{{ ref("x") }}`` calls; those are substituted directly, which is exactly
what Jinja would produce and avoids compiling thousands of templates. Anything else goes through a
sandboxed Jinja environment where only the four functions exist.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from streamt.project.model import Ref

_SIMPLE_CALL = re.compile(r"""\{\{-?\s*(source|ref)\s*\(\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\)\s*-?\}\}""")
_JINJA_MARKERS = ("{{", "{%", "{#")


@attrs.frozen
class Rendered:
    """``sql`` is ``None`` when rendering failed; ``error`` then says why (``line`` is 1-based)."""

    sql: str | None
    dependencies: tuple[Ref, ...]
    error: str | None = None
    error_kind: str | None = None  # "syntax", "env", "config"
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
    import jinja2
    from jinja2.sandbox import ImmutableSandboxedEnvironment

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

    environment = ImmutableSandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    environment.globals.clear()
    environment.filters.clear()
    environment.tests.clear()
    environment.globals.update(
        source=lambda name: record("source", str(name)),
        ref=lambda name: record("model", str(name)),
        env=env_fn,
        config=config_fn,
    )
    try:
        template = environment.from_string(sql)
        text = template.render()
    except jinja2.TemplateSyntaxError as exc:
        return Rendered(None, tuple(deps), exc.message or "syntax error", "syntax", exc.lineno)
    except _EnvMissing:
        return Rendered(None, tuple(deps), "environment variable not set", "env", None, tuple(missing))
    except _ConfigMissing as exc:
        return Rendered(None, tuple(deps), f"unknown config path '{exc}'", "config")
    except jinja2.UndefinedError as exc:
        return Rendered(None, tuple(deps), f"{exc.message} (only source, ref, env and config exist)", "syntax")
    except (jinja2.TemplateError, TypeError, ValueError, RecursionError, jinja2.sandbox.SecurityError) as exc:
        return Rendered(None, tuple(deps), str(exc) or type(exc).__name__, "syntax")
    if len(text) > 10 * len(sql) + 100_000:
        return Rendered(None, tuple(deps), "template output is unreasonably large", "syntax")
    return Rendered(text, tuple(deps))
