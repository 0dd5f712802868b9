"""Fresh-virtual-environment tests: install distributions the way users do, then run `streamt`.

They build wheels from the local source trees with uv (no editable installs,
nothing from the workspace's .venv), so they catch undeclared dependencies
and missing entry points that in-workspace tests cannot see. The session's
``built_distributions`` (every sdist, and the wheel built from it) and
``installed_venv`` (all those wheels) serve the sdist/wheel parity test and
the installed Kafka Streams journey. Select or skip them with
``-m packaging`` / ``-m "not packaging"``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

# --import-mode=importlib does not put this folder on sys.path; the distributions' list is a sibling.
sys.path.insert(0, str(Path(__file__).parent))
from distributions import CORE, DISTRIBUTIONS, REPO, Built, project_name


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "packaging: installs distributions into fresh virtual environments (slow)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.packaging)


class Venv:
    """A fresh virtual environment with a way to run its `streamt`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.python = path / "bin" / "python"
        self.streamt = path / "bin" / "streamt"

    def install(self, *sources: Path) -> None:
        _run([_uv(), "pip", "install", "--quiet", "--python", str(self.python), *map(str, sources)])

    def run(self, *args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMT_", "PYTHON", "VIRTUAL_ENV"))}
        env["STREAMT_CACHE_DIR"] = os.environ["STREAMT_CACHE_DIR"]  # the session's, never ~/.cache
        return subprocess.run(
            [str(self.streamt), *map(str, args)], capture_output=True, text=True, env=env, cwd=cwd, check=False
        )

    def pytest(self, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        """This venv's ``pytest -q ARGS`` in ``cwd``: what a plugin author runs in their checkout."""
        argv = [str(self.python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *map(str, args)]
        return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)

    def envelope(self, *args: str | Path, cwd: Path | None = None) -> dict[str, Any]:
        done = self.run("-o", "json", *args, cwd=cwd)
        document = json.loads(done.stdout)  # exactly one document, or this raises
        assert done.returncode == (0 if document["status"] == "ok" else 1), done
        return document


def _uv() -> str:
    found = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    assert Path(found).exists(), "uv is required for packaging tests (./dev setup installs it)"
    return found


def _run(argv: Sequence[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="session")
def make_venv(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Venv]:
    """``make_venv(*sources)``: a new venv with streamt-core and ``sources`` installed from local paths."""

    def make(*sources: Path) -> Venv:
        path = tmp_path_factory.mktemp("venv")
        _run([_uv(), "venv", "--quiet", "--python", sys.executable, str(path)])
        venv = Venv(path)
        venv.install(CORE, *sources)
        return venv

    return make


@pytest.fixture(scope="session")
def core_venv(make_venv: Callable[..., Venv]) -> Venv:
    return make_venv()


def _uv_build(*args: str | Path) -> None:
    # The build backend (hatchling) comes from uv's cache when it has it, else from PyPI: build
    # isolation never touches the checkout's .venv.
    offline = subprocess.run(
        [_uv(), "build", "--quiet", "--offline", *map(str, args)], capture_output=True, check=False
    )
    if offline.returncode != 0:
        _run([_uv(), "build", "--quiet", *map(str, args)])


@pytest.fixture(scope="session")
def built_distributions(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    """Every distribution's sdist (``uv build --sdist``), then its wheel built from that sdist, by project name."""
    out = tmp_path_factory.mktemp("dist")
    _uv_build(REPO, "--all-packages", "--sdist", "--out-dir", out / "sdist")

    def from_sdist(source: Path) -> Built:
        name = project_name(source)
        (sdist,) = (out / "sdist").glob(f"{name.replace('-', '_')}-*.tar.gz")
        _uv_build(sdist, "--wheel", "--out-dir", out / "wheel" / name)
        (wheel,) = (out / "wheel" / name).glob("*.whl")
        return Built(source, sdist, wheel)

    with ThreadPoolExecutor(max_workers=2) as pool:  # one build per core
        return {project_name(b.source): b for b in pool.map(from_sdist, DISTRIBUTIONS)}


@pytest.fixture(scope="session")
def installed_venv(tmp_path_factory: pytest.TempPathFactory, built_distributions: dict[str, Built]) -> Venv:
    """A fresh venv outside the checkout with every built wheel (``streamt[all]``) and their PyPI dependencies."""
    path = tmp_path_factory.mktemp("installed") / "venv"
    _run([_uv(), "venv", "--quiet", "--python", sys.executable, str(path)])
    venv = Venv(path)
    venv.install(*(b.wheel for b in built_distributions.values()))
    return venv
