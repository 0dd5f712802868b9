"""``${NAME}`` / ``${NAME:-fallback}`` interpolation over parsed YAML (dsl.md §2.2).

The walk also normalises the tree to plain JSON-compatible data (string keys, no dates or bytes)
and enforces the node budget that defuses alias bombs, so every later stage sees a bounded tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from streamt.errors import Codes, StreamtError
from streamt.project.yaml_io import MAX_NODES
from streamt.redact import is_secret_name

# One ``${NAME}`` / ``${NAME:-fallback}``; also the JSON Schema's pattern of a value resolved later.
PLACEHOLDER_PATTERN = r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}"
_PLACEHOLDER = re.compile(r"\$\$\{|" + PLACEHOLDER_PATTERN)
# scheme://userinfo@ : the userinfo ends at the first '@' before any '/', '?' or '#' (as redact's).
_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://(?P<userinfo>[^/?#@\s]*)@")

Path = tuple[Any, ...]


class _Budget:
    """One walk's node budget, and how the walk treats unresolved names (it travels with every call)."""

    def __init__(self, shown: str) -> None:
        self.left = MAX_NODES
        self.shown = shown
        self.keep_missing = False
        self.deferred: set[str] | None = None

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise self.exhausted()

    def exhausted(self) -> StreamtError:
        return StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Invalid YAML in {self.shown}: the document expands to more than {MAX_NODES:,} nodes",
            "Remove the recursive anchors/aliases; the file looks like an alias bomb.",
            location=self.shown,
        )


def substitute(text: str, env: Mapping[str, str], missing: set[str], keep_missing: bool = False) -> str:
    """Resolve placeholders in one string; unresolved names are added to ``missing``.

    ``keep_missing`` leaves an unresolved placeholder as its ``${NAME}`` text instead of "" (for
    displays such as ``envs show``, which must not fail because a secret is not exported).
    """
    if "$" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$${":
            return "${"
        name, fallback = match.group(1), match.group(2)
        value = env.get(name)
        if value:
            return value
        if fallback is not None:
            return fallback
        if value is None:
            missing.add(name)
            if keep_missing:
                return match.group(0)
        return ""

    return _PLACEHOLDER.sub(replace, text)


def interpolate(
    document: Any,
    env: Mapping[str, str],
    shown: str,
    missing: set[str],
    exempt: Callable[[Path], bool] = lambda _path: False,
    keep_missing: bool = False,
    deferred: set[str] | None = None,
) -> Any:
    """A plain copy of ``document`` with placeholders resolved outside ``exempt`` paths.

    With ``deferred`` (a set), a variable that is unset where a secret goes (a secret-named key, as
    ``envs show`` masks it, or the userinfo of a URL) is not missing: its ``${NAME}`` text stays and
    its name is added to ``deferred``, for commands that never connect (dsl.md section 2.2).
    """
    budget = _Budget(shown)
    budget.keep_missing = keep_missing
    budget.deferred = deferred
    return _walk(document, (), env, missing, exempt, budget)


def _secret_path(path: Path) -> bool:
    """Whether the nearest key of ``path`` names a secret (``sasl_password``; a list's items are its key's)."""
    key = next((part for part in reversed(path) if isinstance(part, str)), "")
    return is_secret_name(key)


def _substitute_text(text: str, path: Path, env: Mapping[str, str], missing: set[str], budget: _Budget) -> str:
    deferred = budget.deferred
    if deferred is None or "$" not in text:
        return substitute(text, env, missing, budget.keep_missing)
    if _secret_path(path):
        return substitute(text, env, deferred, keep_missing=True)
    userinfo = _USERINFO.search(text)
    if userinfo is None:
        return substitute(text, env, missing, budget.keep_missing)
    start, end = userinfo.span("userinfo")
    return (
        substitute(text[:start], env, missing, budget.keep_missing)
        + substitute(text[start:end], env, deferred, keep_missing=True)
        + substitute(text[end:], env, missing, budget.keep_missing)
    )


def _walk(value: Any, path: Path, env: Mapping[str, str], missing: set[str], exempt: Any, budget: _Budget) -> Any:
    budget.spend()
    if isinstance(value, str):
        return value if exempt(path) else _substitute_text(value, path, env, missing, budget)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = k if type(k) is str else _key(k)
            # Most leaves are text without "$" or plain numbers: they come back unchanged whatever the
            # path (``substitute`` returns such text as is), so no path is built and no call is made
            # for them; the budget is spent in the same order as ``_walk`` would.
            kind = type(v)
            if (kind is str and "$" not in v) or kind is int or kind is bool or v is None or kind is float:
                budget.left -= 1
                if budget.left < 0:
                    raise budget.exhausted()
                out[key] = v
            else:
                out[key] = _walk(v, (*path, key), env, missing, exempt, budget)
        return out
    if isinstance(value, list):
        items = []
        for index, v in enumerate(value):
            kind = type(v)
            if (kind is str and "$" not in v) or kind is int or kind is bool or v is None or kind is float:
                budget.left -= 1
                if budget.left < 0:
                    raise budget.exhausted()
                items.append(v)
            else:
                items.append(_walk(v, (*path, index), env, missing, exempt, budget))
        return items
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, bytes):
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Invalid YAML in {budget.shown}: binary values (!!binary) are not supported",
            "Use a plain string.",
            location=budget.shown,
        )
    if isinstance(value, (set, frozenset)):
        return sorted(str(v) for v in value)
    return str(value)


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return "null" if key is None else str(key)


def placeholders(document: Any) -> dict[str, str]:
    """Dotted path -> original text, for every string in ``document`` that holds a ``${NAME}`` placeholder.

    Read from the document *before* interpolation, so compilers can write the placeholder text into
    generated artifacts instead of the resolved secret. ``$${...}`` escapes are literal text, not
    placeholders, and are left out.
    """
    found: dict[str, str] = {}
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        prefix, value = stack.pop()
        if isinstance(value, dict):
            stack += [(f"{prefix}.{_key(k)}" if prefix else _key(k), v) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(f"{prefix}.{i}" if prefix else str(i), v) for i, v in enumerate(value)]
        elif isinstance(value, str) and "${" in value and any(m.group(1) for m in _PLACEHOLDER.finditer(value)):
            found[prefix] = value
    return dict(sorted(found.items()))


def has_placeholder(text: str) -> bool:
    """Whether ``text`` holds a ``${NAME}`` placeholder (``$${`` is an escaped dollar, not one)."""
    return any(m.group(1) for m in _PLACEHOLDER.finditer(text))


def missing_error(names: set[str]) -> StreamtError:
    """``E502_ENV_VAR_ERROR`` naming every unset variable (never a value)."""
    listed = ", ".join(sorted(names))
    return StreamtError(
        Codes.E502_ENV_VAR_ERROR,
        f"Environment variable(s) not set: {listed}",
        "Export them, add them to .env (or .env.<env>), or use ${NAME:-default} in the project file.",
        details={"variables": sorted(names)},
    )
