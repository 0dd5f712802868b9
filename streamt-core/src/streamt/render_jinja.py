"""Model SQL with Jinja beyond literal ``source()``/``ref()`` calls, in the sandbox (``streamt.jinja_sandbox``).

Only the four functions exist; a syntax error, an unset variable, an unknown config path or a
resource cap becomes a ``Rendered`` with the error, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jinja2

from streamt import jinja_sandbox
from streamt.refs import Ref
from streamt.rendered import Rendered


class _EnvMissing(Exception):
    pass


class _ConfigMissing(Exception):
    pass


def render_jinja(
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
