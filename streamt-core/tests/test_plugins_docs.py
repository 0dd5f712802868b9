"""docs/plugins.md stays true: every hookspec is documented with its arguments, and the example is the real one."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from streamt import hookspecs

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "plugins.md"
EXAMPLE = REPO / "tests" / "example_plugin"


def hookspec_signatures() -> dict[str, str]:
    specs = {}
    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(function, "streamt_spec"):  # set by pluggy's HookspecMarker("streamt")
            specs[name] = ", ".join(inspect.signature(function).parameters)
    return specs


def documented_signatures() -> dict[str, str]:
    return dict(re.findall(r"^### `(streamt_\w+)\(([^)]*)\)`$", DOC.read_text(), re.M))


def test_the_hookspec_scan_finds_the_contract() -> None:
    assert {"streamt_commands", "streamt_exporters", "streamt_compile"} <= set(hookspec_signatures())


@pytest.mark.parametrize("hook", sorted(hookspec_signatures()))
def test_every_hookspec_is_documented_with_its_arguments(hook: str) -> None:
    documented = documented_signatures()
    assert hook in documented, f"docs/plugins.md has no '### `{hook}(...)`' section"
    assert documented[hook] == hookspec_signatures()[hook]


def test_no_documented_hook_is_missing_from_the_hookspecs() -> None:
    assert sorted(set(documented_signatures()) - set(hookspec_signatures())) == []


def test_every_hookspec_has_a_docstring() -> None:
    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(function, "streamt_spec"):
            assert (function.__doc__ or "").strip(), name


@pytest.mark.parametrize(
    ("fence", "path"),
    [
        ("toml", "pyproject.toml"),
        ("python", "src/streamt_topics_csv/__init__.py"),
        ("python", "tests/test_topics_csv.py"),
    ],
)
def test_the_worked_example_in_the_docs_is_the_tested_distribution(fence: str, path: str) -> None:
    blocks = re.findall(rf"^```{fence}\n(.*?)^```$", DOC.read_text(), re.M | re.S)
    source = (EXAMPLE / path).read_text()
    assert source in blocks, f"docs/plugins.md does not show {path} as it is; copy it again"
