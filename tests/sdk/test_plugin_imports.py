"""Every in-repo plugin imports core only through ``streamt.sdk``: everything else in core is private."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# streamt-testing is no plugin: the kit of core's own minor line (its streamt-core range), it drives
# core's CLI and plugin manager in-process, as core's tests do.
NOT_PLUGINS = ("streamt-core", "streamt-testing")
PLUGIN_SOURCES = sorted(
    p for p in [*REPO.glob("streamt-*/src"), *REPO.glob("streamt-exporters/*/src")] if p.parent.name not in NOT_PLUGINS
)
# ``from streamt import hookimpl`` predates the SDK and names the same marker; ``from streamt import sdk``
# is the SDK itself (its names then resolve when used, as a client that must not import `requests` early does).
ALLOWED = ("streamt.sdk",)
FROM_STREAMT = frozenset({"hookimpl", "__version__", "sdk"})


def _private(module: str) -> bool:
    inside = module == "streamt" or module.startswith("streamt.")
    return inside and not any(module == a or module.startswith(a + ".") for a in ALLOWED)


def private_imports(source: Path, root: Path = REPO) -> list[str]:
    """``file:line`` of every import of a private core module under ``source`` (lazy ones too)."""
    found = []
    for path in sorted(source.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module == "streamt" and {a.name for a in node.names} <= FROM_STREAMT:
                    continue
                if _private(node.module):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: from {node.module} import ...")
            elif isinstance(node, ast.Import):
                found += [
                    f"{path.relative_to(root)}:{node.lineno}: import {a.name}" for a in node.names if _private(a.name)
                ]
    return found


def test_the_scan_sees_every_plugin_distribution() -> None:
    names = {p.parent.name for p in PLUGIN_SOURCES}
    assert {"streamt-kafka", "streamt-flink", "streamt-postgres-state", "streamt-exporter-odcs"} <= names


@pytest.mark.parametrize("source", PLUGIN_SOURCES, ids=lambda p: p.parent.name)
def test_a_plugin_imports_no_private_core_module(source: Path) -> None:
    assert private_imports(source) == [], "import these from streamt.sdk (add the name there if it is missing)"


def test_the_scan_finds_a_private_import(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("def f():\n    from streamt.plan.engine import plan_project\n")
    (tmp_path / "good.py").write_text("from streamt import hookimpl\nfrom streamt.sdk import Artifact\n")
    assert private_imports(tmp_path, tmp_path) == ["bad.py:2: from streamt.plan.engine import ..."]
