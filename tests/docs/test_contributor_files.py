"""CONTRIBUTING.md's promises about the pre-commit hooks and the per-distribution changelogs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = sorted(p.parent for p in REPO.glob("streamt-*/pyproject.toml")) + sorted(
    p.parent for p in REPO.glob("streamt-exporters/*/pyproject.toml")
)


def _hooks() -> list[dict]:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())
    assert [repo["repo"] for repo in config["repos"]] == ["local"]  # nothing is fetched
    return config["repos"][0]["hooks"]


def test_every_hook_runs_a_tool_of_the_repository_venv() -> None:
    for hook in _hooks():
        assert hook["language"] == "system" and hook["entry"].startswith(".venv/bin/"), hook


def test_mypy_checks_every_distribution_as_dev_lint_does() -> None:
    (mypy,) = [hook for hook in _hooks() if hook["id"] == "mypy"]
    checked = mypy["entry"].split()[1:]
    assert sorted(checked) == sorted(f"{d.relative_to(REPO).as_posix()}/src" for d in DISTRIBUTIONS)


def test_the_push_hook_runs_the_fast_lane() -> None:
    (fast,) = [hook for hook in _hooks() if hook["id"] == "fast-lane"]
    assert "--fast-lane" in fast["entry"].split() and fast["stages"] == ["pre-push"]


def _version(distribution: Path) -> str:
    project = tomllib.loads((distribution / "pyproject.toml").read_text())["project"]
    if "version" in project:
        return project["version"]
    init = (distribution / "src" / "streamt" / "__init__.py").read_text()  # streamt-core: one version source
    found = re.search(r'^__version__ = "([^"]+)"$', init, re.M)
    assert found
    return found.group(1)


@pytest.mark.parametrize("distribution", [REPO, *DISTRIBUTIONS], ids=lambda p: p.relative_to(REPO).as_posix())
def test_each_distribution_has_a_changelog_with_unreleased_and_its_version(distribution: Path) -> None:
    text = (distribution / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (\S+)", text, re.M)
    assert headings[0] == "Unreleased" and _version(distribution) in headings, headings
    assert "CONTRIBUTING.md#versions-and-changelogs" in text
