"""Every distribution of the repository has a README and declares its version exactly once."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = sorted(
    p.parent for p in [*REPO.glob("streamt-*/pyproject.toml"), *REPO.glob("streamt-exporters/*/pyproject.toml")]
)


@pytest.mark.parametrize("root", DISTRIBUTIONS, ids=lambda p: p.name)
def test_a_readme_and_one_version_source(root: Path) -> None:
    assert (root / "README.md").is_file(), f"{root.name} has no README.md"
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    declared = [s for s in root.glob("src/*/__init__.py") if re.search(r"^__version__ = ", s.read_text(), re.M)]
    if "version" in project.get("dynamic", []):
        assert "version" not in project and len(declared) == 1, root.name
    else:
        assert "version" in project and declared == [], f"{root.name}: the version is also in {declared}"


def test_every_distribution_is_seen() -> None:
    assert {"streamt-core", "streamt-kafka", "streamt-exporter-odcs"} <= {p.name for p in DISTRIBUTIONS}


@pytest.mark.parametrize("root", DISTRIBUTIONS, ids=lambda p: p.name)
def test_ships_py_typed(root: Path) -> None:
    """PEP 561: without the marker, a plugin author's mypy treats the distribution as untyped (``Any``).

    The wheel's build config takes every file of the package folder; the sdist/wheel parity test
    (tests/packaging) proves the marker reaches both archives.
    """
    wheel = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    packages = [root / package for package in wheel["packages"]]
    assert packages, root.name
    for package in packages:
        assert (package / "py.typed").is_file(), f"{package.relative_to(REPO)} has no py.typed"
