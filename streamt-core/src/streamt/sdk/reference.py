"""The SDK reference page (``docs/sdk.md``), generated from the docstrings of ``streamt.sdk``.

Regenerate it with ``python -m streamt.sdk.reference > docs/sdk.md``; a test fails when the page
and the docstrings disagree, or when a public name has no docstring.
"""

from __future__ import annotations

import inspect
from typing import Any

import attrs

import streamt.sdk as sdk
from streamt.values import Value

HEADER = """# streamt.sdk reference

Generated from the docstrings of `streamt.sdk` by `python -m streamt.sdk.reference > docs/sdk.md`
(a test keeps this page and the code identical). How the pieces fit together is in
[Writing a plugin](plugins.md); the conformance kit for a plugin's tests is the distribution
streamt-testing ([its reference](testing.md)).
"""


def _signature(value: Any) -> str:
    try:
        return str(inspect.signature(value))
    except (TypeError, ValueError):
        return "(...)"


def _is_protocol(value: Any) -> bool:
    return inspect.isclass(value) and bool(getattr(value, "_is_protocol", False))


def _members(protocol: type) -> list[str]:
    lines = []
    for name, member in vars(protocol).items():
        if name.startswith("_") and name != "__call__":
            continue
        if isinstance(member, property) and member.fget is not None:
            lines.append(f"- `{name}` (property) — {inspect.getdoc(member.fget) or ''}")
        elif inspect.isfunction(member):
            doc = (inspect.getdoc(member) or "").replace("\n", " ")
            lines.append(f"- `{name}{_signature(member)}` — {doc}")
    return lines


def public_members(cls: type) -> list[tuple[str, Any]]:
    """``(name, function)`` of the public methods and properties a class of the SDK defines (its streamt bases too)."""
    found: dict[str, Any] = {}
    for klass in cls.__mro__:
        if not klass.__module__.startswith("streamt") or klass is Value:
            continue
        for name, member in vars(klass).items():
            if name.startswith("_") or name in found:
                continue
            readable = isinstance(member, property) and member.fget is not None
            if readable or isinstance(member, (staticmethod, classmethod)) or inspect.isfunction(member):
                found[name] = member
    return sorted(found.items())


def _member_line(name: str, member: Any) -> str:
    if isinstance(member, property):
        return f"- `{name}` (property) — {_one_line(member.fget)}"
    function = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
    kind = (
        " (classmethod)"
        if isinstance(member, classmethod)
        else " (staticmethod)"
        if isinstance(member, staticmethod)
        else ""
    )
    return f"- `{name}{_signature(function)}`{kind} — {_one_line(function)}"


def _one_line(function: Any) -> str:
    return (inspect.getdoc(function) or "").replace("\n", " ")


def entry(name: str, value: Any) -> str:
    """One name's section of a reference page: its kind, signature, docstring, and a class's members."""
    doc = inspect.getdoc(value) or ""
    if _is_protocol(value):
        kind = "protocol"
    elif attrs.has(value) or (inspect.isclass(value) and issubclass(value, Value)):
        kind = "value type"
    elif inspect.isclass(value):
        kind = "class"
    else:
        kind = "function"
    shown = name if _is_protocol(value) else f"{name}{_signature(value)}"
    out = [f"### `{name}`", "", f"*{kind}* `{shown}`", "", doc]
    if _is_protocol(value):
        out += ["", *_members(value)]
    elif inspect.isclass(value):
        members = [_member_line(n, m) for n, m in public_members(value)]
        out += ["", "Methods and properties:", "", *members] if members else []
    return "\n".join(out).rstrip() + "\n"


# Objects whose repr says nothing (or carries a memory address): described in words.
_OBJECTS = {
    "Codes": "the registry of every error and warning code: `Codes.E202_FLINK_REQUIRED` is an `ErrorCode`",
    "hookimpl": "the marker of hook implementations: `@hookimpl def streamt_validate(project): ...`",
}


def _describe(name: str, value: Any) -> str:
    if name in _OBJECTS:
        return _OBJECTS[name]
    return f"`{value!r}`"


def render() -> str:
    """The whole page, deterministic: names in alphabetical order within each section."""
    documented, constants = [], []
    for name in sorted(sdk.__all__, key=str.lower):
        value = getattr(sdk, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            documented.append((name, value))
        elif name not in ("__version__",):
            constants.append((name, value))
    protocols = [(n, v) for n, v in documented if _is_protocol(v)]
    others = [(n, v) for n, v in documented if not _is_protocol(v)]
    parts = [HEADER, "## Protocols\n", *(entry(n, v) for n, v in protocols)]
    parts += ["## Classes, value types and functions\n", *(entry(n, v) for n, v in others)]
    rows = [f"| `{name}` | {_describe(name, value)} |" for name, value in constants]
    parts += ["## Constants and markers\n", "| name | value |\n|---|---|\n" + "\n".join(rows) + "\n"]
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
