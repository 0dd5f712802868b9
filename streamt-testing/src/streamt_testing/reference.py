"""The kit's reference page (``docs/testing.md``), generated from the docstrings of ``streamt_testing``.

Regenerate it with ``python -m streamt_testing.reference > docs/testing.md``; a test fails when
the page and the docstrings disagree.
"""

from __future__ import annotations

import inspect
from typing import Any

from streamt.sdk.reference import entry

import streamt_testing as testing
from streamt_testing import contracts

HEADER = """# streamt-testing reference

Generated from the docstrings of `streamt_testing` by
`python -m streamt_testing.reference > docs/testing.md` (a test keeps this page and the code
identical). streamt-testing is a distribution of its own, a plugin's test dependency:

```toml
[dependency-groups]
dev = ["pytest>=8", "streamt-testing>=0.1,<0.2"]
```

How a plugin's suite uses it is in [Writing a plugin](plugins.md#testing-a-plugin); the names a
plugin's code uses are in [the SDK reference](sdk.md).
"""

KIT_HEADER = """## The conformance kit: `streamt_testing.contracts`

Subclass the contract of your plugin's kind in its test suite and provide the fixtures of the
*you provide* column; the others have defaults you may override. Every check first asserts that
the command or hook ran, and secret scans read text and JSON output, written files and DEBUG logs.
The fixtures of `streamt_testing` (`streamt_project`, `streamt_cli`, `streamt_plugin`...) are
available too (a pytest plugin, loaded once streamt-testing is installed).

| contract | what it checks | you provide | defaults you may override |
|---|---|---|---|
"""

HELPERS = ("write_project", "write_distribution", "run_cli", "run_cli_text", "closed_port")


def render() -> str:
    """The whole page, deterministic: the contracts in ``contracts.__all__`` order, then the helpers."""
    return "\n".join([HEADER, _kit(), _helpers()])


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


def _helpers() -> str:
    parts = ["## Test helpers: `streamt_testing`\n", (inspect.getdoc(testing) or "").split("\n\n")[0] + "\n"]
    for name in HELPERS:
        parts.append(entry(name, getattr(testing, name)))
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
