"""Fresh-virtual-environment tests: install distributions the way users do, then run `streamt`.

They build wheels from the local source trees with uv (no editable installs,
nothing from the workspace's .venv), so they catch undeclared dependencies
and missing entry points that in-workspace tests cannot see. Select or skip
them with ``-m packaging`` / ``-m "not packaging"``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

CORE = Path(__file__).resolve().parents[2] / "streamt-core"


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
