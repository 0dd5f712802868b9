"""Session fixtures of the Kafka Streams journeys: one engine client and one runner image per run.

Shared by tests/e2e (through its conftest) and tests/packaging (the installed-wheel journey), so a
session builds the runner image of these sources at most once: later requests, and later runs on a
warm stack, find it on the engine by its build-input label.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BUILD_LABEL = "io.streamt.runner.build-input-hash"
BASE_LABEL = "io.streamt.runner.base-image"
# The installed console script of the interpreter running the tests (the source checkout's CLI).
SOURCE_STREAMT = [str(Path(sys.executable).with_name("streamt"))]


def run_json(command: list[str], *args: Any, env: dict[str, str], timeout: float = 600) -> dict[str, Any]:
    """``command -o json *args``'s data, asserting an ok envelope."""
    done = subprocess.run(
        [*command, "-o", "json", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=timeout,
    )
    envelope = json.loads(done.stdout)
    assert done.returncode == 0 and envelope["status"] == "ok", done.stdout + done.stderr
    return dict(envelope["data"])


@pytest.fixture(scope="session")
def kstreams_engine(docker_host: str) -> Iterator[Any]:
    docker = pytest.importorskip("docker")
    client = docker.DockerClient(base_url=docker_host, timeout=60)
    yield client
    client.close()


@pytest.fixture(scope="session")
def kstreams_runner_image(kstreams_engine: Any, docker_host: str, kstreams_base_image: str) -> str:
    """The runner image of these sources on this base: reused when the engine has it (a warm stack)."""
    env = {"DOCKER_HOST": docker_host}
    dry = run_json(SOURCE_STREAMT, "runtime", "build", "--dry-run", "--base-image", kstreams_base_image, env=env)
    labels = [f"{BUILD_LABEL}={dry['build_input_hash']}", f"{BASE_LABEL}={kstreams_base_image}"]
    cached = kstreams_engine.images.list(filters={"label": labels})
    if cached:
        return str(cached[0].id)
    built = run_json(
        SOURCE_STREAMT, "runtime", "build", "--base-image", kstreams_base_image, "--timeout", "900", env=env
    )
    return str(built["image"])
