"""The SDK reference page (``docs/sdk.md``), generated from the docstrings of ``streamt.sdk``.

Regenerate it with ``python -m streamt.sdk.reference > docs/sdk.md``; a test fails when the page
and the docstrings disagree, or when a public name has no docstring.
"""

from __future__ import annotations

import inspect
from typing import Any

import attrs

import streamt.sdk as sdk
import streamt.testing as testing
from streamt.testing import contracts
from streamt.values import Value

HEADER = """# streamt.sdk reference

Generated from the docstrings of `streamt.sdk` by `python -m streamt.sdk.reference > docs/sdk.md`
(a test keeps this page and the code identical). How the pieces fit together is in
[Writing a plugin](plugins.md).
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


def _entry(name: str, value: Any) -> str:
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
    parts = [HEADER, "## Protocols\n", *(_entry(n, v) for n, v in protocols)]
    parts += ["## Classes, value types and functions\n", *(_entry(n, v) for n, v in others)]
    rows = [f"| `{name}` | {_describe(name, value)} |" for name, value in constants]
    parts += ["## Constants and markers\n", "| name | value |\n|---|---|\n" + "\n".join(rows) + "\n"]
    parts += [_kit(), _helpers()]
    return "\n".join(parts)


KIT_HEADER = """## The conformance kit: `streamt.testing.contracts`

Subclass the contract of your plugin's kind in its test suite and provide the fixtures of the
*you provide* column; the others have defaults you may override. Every check first asserts that
the command or hook ran, and secret scans read text and JSON output, written files and DEBUG logs.
The fixtures of `streamt.testing` (`streamt_project`, `streamt_cli`, `streamt_plugin`...) are
available too (a pytest plugin installed with streamt-core).

| contract | what it checks | you provide | defaults you may override |
|---|---|---|---|
"""


def _kit() -> str:
    rows = []
    for name in contracts.__all__:
        cls = getattr(contracts, name)
        required: list[str] = []
        optional: list[str] = []
        for fixture, function in _fixtures(cls):
            (required if "NotImplementedError" in inspect.getsource(function) else optional).append(f"`{fixture}`")
        summary = (inspect.getdoc(cls) or "").split("\n")[0]
        rows.append(f"| `{name}` | {summary} | {', '.join(required) or '-'} | {', '.join(optional) or '-'} |")
    return KIT_HEADER + "\n".join(rows) + "\n"


def _fixtures(cls: type) -> list[tuple[str, Any]]:
    """The public fixtures of a contract class: ``(name, the function behind it)``."""
    out = []
    for name in sorted(dir(cls)):
        if name.startswith("_"):
            continue
        definition = getattr(cls, name)
        function = getattr(definition, "_get_wrapped_function", None)  # pytest 8.4+: a FixtureFunctionDefinition
        if function is not None:
            out.append((name, function()))
        elif hasattr(definition, "_pytestfixturefunction") or hasattr(definition, "_fixture_function_marker"):
            out.append((name, definition))
    return out


HELPERS = ("write_project", "write_distribution", "run_cli", "run_cli_text", "closed_port")


def _helpers() -> str:
    parts = ["## Test helpers: `streamt.testing`\n", (inspect.getdoc(testing) or "").split("\n\n")[0] + "\n"]
    for name in HELPERS:
        parts.append(_entry(name, getattr(testing, name)))
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
