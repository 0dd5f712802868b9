"""Installed acceptance: wheels of streamt-core and the plugins the history uses, built from the source
trees, installed into a fresh virtual environment outside the checkout, run ``streamt impact`` over
every consecutive pair of the scripted history (as a CI job would: a process per run, cwd in the clone).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import history  # the scripted history shared with test_history
from history import EXPECTED, fields_of

pytestmark = pytest.mark.packaging  # builds wheels and a fresh virtualenv: outside the fast lane

REPO = Path(__file__).resolve().parents[2]
DISTRIBUTIONS = (
    "streamt-core",
    "streamt-impact",
    "streamt-kafka",
    "streamt-flink",
    "streamt-kstreams",
    "streamt-connect",
)


def _uv() -> str:
    found = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    assert Path(found).exists(), "uv is required (./dev setup installs it)"
    return found


def _run(argv: list[str], cwd: Path | None = None) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=cwd)
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def streamt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    wheels = tmp_path_factory.mktemp("wheels")
    for name in DISTRIBUTIONS:
        _run([_uv(), "build", "--quiet", "--wheel", "--out-dir", str(wheels), str(REPO / name)])
    venv = tmp_path_factory.mktemp("venv")
    assert not venv.is_relative_to(REPO)
    _run([_uv(), "venv", "--quiet", "--python", sys.executable, str(venv)])
    _run(
        [_uv(), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), *map(str, wheels.glob("*.whl"))]
    )
    return venv / "bin" / "streamt"


def test_installed_streamt_impact_over_the_scripted_history(streamt: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    commits = history.build(root)
    project = root / history.PROJECT
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMT_", "PYTHON", "VIRTUAL_ENV", "GIT_"))}

    def impact(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(streamt), "impact", *args], capture_output=True, text=True, env=env, cwd=project, check=False
        )

    for index, (subject, _) in enumerate(history.STEPS[1:], start=1):
        done = impact("--base", commits[index - 1], "--head", commits[index], "--format", "json")
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        expected_fields, expected_impacted = EXPECTED[subject]
        assert fields_of(data) == expected_fields, subject
        assert {i["name"]: i["breaking"] for i in data["impacted"]} == expected_impacted, subject

    key = [subject for subject, _ in history.STEPS].index("key changed")
    gate = impact("--base", commits[key - 1], "--head", commits[key], "--format", "markdown", "--fail-on", "breaking")
    assert gate.returncode == 1 and gate.stdout.startswith("<!-- streamt-impact -->\n### streamt impact: breaking")
    plugins = json.loads(
        subprocess.run(
            [str(streamt), "-o", "json", "plugins"], capture_output=True, text=True, env=env, check=False
        ).stdout
    )
    assert sorted(p["distribution"] for p in plugins["data"]["plugins"]) == sorted(DISTRIBUTIONS[1:])
