"""``streamt runtime build``: the packaged runner sources -> a local, untagged runner image.

Build inputs are the files under ``runner/`` in this package (the Maven POM, the Java sources and
the Dockerfile). Their hash, ``build_input_hash``, is computed from the bytes alone, so a dry run
needs no process, network, Docker or file write, and two builds of the same package agree on it.

A real build compiles the runner with Maven in a temporary directory (removed afterwards), sends
the Dockerfile, the jar and its runtime dependencies as the build context of one classic Engine
API build with the base image as a build argument (``pull=0``: the build itself pulls nothing;
a missing base is pulled by digest beforehand, ``streamt_kstreams.base_image``), and
returns the image ID. The image gets labels naming its inputs, no tag, and is never pushed. The ID
itself is not reproducible: the image configuration records its creation time.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from streamt.sdk import Codes, StreamtError

from streamt_kstreams import engine
from streamt_kstreams.base_image import PINNED, ensure_present, progress_event
from streamt_kstreams.limits import MAX_TIMEOUT

RUNNER_DIR = Path(__file__).resolve().parent / "runner"
_SKIPPED_PARTS = ("target", "__pycache__")
LABEL_INPUTS = "io.streamt.runner.build-input-hash"
LABEL_BASE = "io.streamt.runner.base-image"


def packaged_inputs(root: Path = RUNNER_DIR) -> list[tuple[str, bytes]]:
    """``(relative path, bytes)`` of every build input, sorted by path."""
    found = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not any(part in _SKIPPED_PARTS for part in relative.parts):
            found.append((relative.as_posix(), path.read_bytes()))
    return found


def input_hash(inputs: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for name, content in inputs:
        digest.update(f"{name}\0{hashlib.sha256(content).hexdigest()}\n".encode())
    return f"sha256:{digest.hexdigest()}"


def check_base_image(reference: str | None) -> str:
    """``reference``, else the pinned default; ``E501`` for anything that is not an ID or a digest."""
    if not reference:
        return PINNED
    if not engine.IMAGE_REF_RE.match(reference):
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"--base-image '{reference}' is not an immutable image ID or digest.",
            "Use sha256:<64 hex> or repo@sha256:<64 hex>; a tag can move.",
        )
    return reference


def dry_run(base_image: str | None) -> dict[str, Any]:
    inputs = packaged_inputs()
    return {
        "dry_run": True,
        "build_input_hash": input_hash(inputs),
        "inputs": [name for name, _ in inputs],
        "base_image": check_base_image(base_image),
        "image": None,
    }


def _maven(workdir: Path, deadline: float) -> Path:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise StreamtError(
            Codes.E208_MISSING_CONFIG,
            "Maven (mvn) is required to compile the runner, and it is not on PATH.",
            "Install Maven 3.8 or later (Debian: apt-get install maven), then rerun.",
        )
    try:
        res = subprocess.run(
            [mvn, "-B", "-q", "-Dstyle.color=never", "package"],
            cwd=workdir,
            capture_output=True,
            timeout=max(1.0, deadline - time.monotonic()),
        )
    except subprocess.TimeoutExpired:
        raise _timed_out("compiling the runner with Maven") from None
    if res.returncode != 0:
        raise StreamtError(
            Codes.E407_DEPLOY_ERROR,
            f"Maven could not compile the runner (exit {res.returncode}).",
            f"Run `mvn -B package` in a copy of {RUNNER_DIR} to see the build log (streamt does not return it).",
        )
    return workdir / "target"


def _timed_out(what: str) -> StreamtError:
    return StreamtError(
        Codes.E407_DEPLOY_ERROR,
        f"runtime build ran out of time while {what}; no image was created.",
        f"Rerun with a larger --timeout (at most {MAX_TIMEOUT} seconds).",
    )


def context_tar(target: Path, dockerfile: bytes) -> bytes:
    """The build context with fixed owners, modes and times, in path order: same jars, same bytes."""
    members = [("Dockerfile", dockerfile), ("streamt-runner.jar", (target / "streamt-runner.jar").read_bytes())]
    members += [(f"lib/{jar.name}", jar.read_bytes()) for jar in sorted((target / "lib").glob("*.jar"))]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, content in members:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content), 0o644, 0
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def build(base_image: str | None, timeout: int) -> dict[str, Any]:
    base = check_base_image(base_image)
    deadline = time.monotonic() + timeout
    inputs = packaged_inputs()
    build_hash = input_hash(inputs)
    docker_engine = engine.client()
    try:
        ensure_present(docker_engine, base, deadline)
        with tempfile.TemporaryDirectory(prefix="streamt-runner-build-") as scratch:
            workdir = Path(scratch)
            for name, content in inputs:
                (workdir / name).parent.mkdir(parents=True, exist_ok=True)
                (workdir / name).write_bytes(content)
            target = _maven(workdir, deadline)
            context = context_tar(target, (workdir / "Dockerfile").read_bytes())
        image_id = _engine_build(docker_engine, context, base, build_hash, deadline)
    finally:
        docker_engine.close()
    return {
        "dry_run": False,
        "build_input_hash": build_hash,
        "inputs": [name for name, _ in inputs],
        "base_image": base,
        "image": image_id,
        "tagged": False,
        "pushed": False,
        "configuration": {"runtime": {"kafka_streams": {"image": image_id}}},
    }


def _engine_build(docker_engine: Any, context: bytes, base: str, build_hash: str, deadline: float) -> str:
    import requests

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _timed_out("compiling the runner with Maven")
    api = docker_engine.api
    # docker-py's build() reads the progress stream from the raw socket, around the bounded layer's size
    # cap; this one classic build request gets the stream whole, within the deadline and the cap.
    params = {
        "rm": "1",
        "forcerm": "1",
        "pull": "0",
        "networkmode": "none",
        "buildargs": json.dumps({"BASE": base}),
        "labels": json.dumps({LABEL_INPUTS: build_hash, LABEL_BASE: base}),
    }
    try:
        response = api.post(
            engine.api_url(api, "/build"),
            params=params,
            data=context,
            headers={"Content-Type": "application/tar"},
            timeout=max(1.0, remaining),
        )
    except requests.exceptions.RequestException as exc:
        if isinstance(exc, requests.exceptions.Timeout) and time.monotonic() >= deadline:
            raise _timed_out("building the image") from None  # the build's own budget is spent
        raise engine.failure(exc) from None
    events = [progress_event(line) for line in response.content.splitlines() if line.strip()]
    if response.status_code != 200 or any("error" in event for event in events):
        raise StreamtError(
            Codes.E407_DEPLOY_ERROR,
            "The Docker Engine refused the runner image build; no image was created.",
            "Check that the base image is a Java 17 runtime with /bin/sh, then rerun.",
        )
    built = [event["aux"].get("ID") for event in events if isinstance(event.get("aux"), dict)]
    image_id = str(built[-1]) if built else ""
    if not engine.IMAGE_ID_RE.match(image_id):
        raise StreamtError(
            Codes.E407_DEPLOY_ERROR,
            "The Docker Engine returned no image ID for the runner build.",
            "Inspect the engine's images; streamt did not tag or push anything.",
        )
    return image_id
