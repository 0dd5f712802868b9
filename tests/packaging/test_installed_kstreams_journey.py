"""The Kafka Streams create -> predicate replacement journey, run by the installed wheels.

The wheels built from the sdists go into a fresh virtualenv outside the checkout; its CLI runs as
``python -I -m streamt`` (isolated: no PYTHONPATH, no user site, no current directory on sys.path),
so nothing of the source tree can stand in for a file the wheels lack. The installed files equal
the source tree's, the installed runner's build inputs hash to the image the session built from
source, and then the same journey as tests/e2e/test_kstreams_replacement.py's format-6 test runs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# --import-mode=importlib: the parity helpers are a sibling, the journey and its fixtures are in tests/e2e.
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
import kstreams_fixtures
import test_kstreams_replacement as replacement
import test_kstreams_runner as runner
from test_sdist_wheel_parity import differences, source_files

pytestmark = [pytest.mark.kafka, pytest.mark.docker]

# Session fixtures shared by name with tests/e2e (the runner image is built at most once per run).
kstreams_engine, kstreams_runner_image = kstreams_fixtures.kstreams_engine, kstreams_fixtures.kstreams_runner_image
engine, runner_image, cleanup, env = runner.engine, runner.runner_image, runner.cleanup, replacement.env


def installed_files(venv, package: str) -> dict[str, bytes]:
    """The files of ``package`` in the venv's site-packages, by their path from site-packages."""
    located = subprocess.run(
        [str(venv.python), "-I", "-c", f"import {package}, pathlib; print(pathlib.Path({package}.__file__).parent)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = Path(located)
    assert folder.is_relative_to(venv.path), f"{package} imported from {folder}, not the fresh venv"
    return {
        p.relative_to(folder.parent).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_installed_wheels_equal_the_source_and_run_the_replacement_journey(
    installed_venv, built_distributions, tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup
):
    cli = [str(installed_venv.python), "-I", "-m", "streamt"]
    for name, package in [("streamt-core", "streamt"), ("streamt-kstreams", "streamt_kstreams")]:
        source = source_files(built_distributions[name].source)
        assert differences(source, installed_files(installed_venv, package)) == [], name

    dry = runner.ok(runner.streamt("runtime", "build", "--dry-run", env=env, cli=cli))
    assert dry == runner.ok(runner.streamt("runtime", "build", "--dry-run", env=env))  # the same build inputs
    assert engine.images.get(runner_image).labels[kstreams_fixtures.BUILD_LABEL] == dry["build_input_hash"]

    replacement.format_6_journey(cli, tmp_path, engine, env, runner_image, kafka_bootstrap, cleanup)
