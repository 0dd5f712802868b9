"""The Java 17 base image of the runner: pinned by digest in the package, pulled through the Engine API.

``runtime build`` without ``--base-image`` (or ``STREAMT_RUNNER_BASE_IMAGE``) starts from
``PINNED``: Eclipse Temurin's 17 JRE, its multi-architecture manifest-list digest, so that the same
package always builds on the same bytes. The pin lives here rather than in ``runner/`` (whose files
``build_input_hash`` covers): a runner image is found by its sources' hash and, separately, by its
base label, so changing the default base never disguises a change of the runner itself.

When the engine does not hold the base, it is pulled by digest, bounded by the build's deadline
(the Engine API answers at once when it cannot reach a registry: that is ``E406`` with the way out,
never the engine's own text). An image given by ID only (``sha256:<id>``) cannot be pulled.
"""

from __future__ import annotations

import json
import time
from typing import Any

from streamt.sdk import Codes, StreamtError

from streamt_kstreams import engine

PINNED = "eclipse-temurin:17-jre@sha256:13cc28a6cc72a38ce1f00c906be3580c1a3e604b8984d694f369a96742abc93b"


def ensure_present(docker_engine: Any, reference: str, deadline: float) -> None:
    """Nothing when the engine has ``reference``; else pull it by digest before ``deadline``, or raise."""
    if engine.image_present(docker_engine, reference):
        return
    if engine.IMAGE_ID_RE.match(reference):
        raise StreamtError(
            Codes.E208_MISSING_CONFIG,
            f"The base image {reference} is not on the Docker Engine, and an image ID cannot be pulled.",
            "Load it into the engine first (docker load), pass a repo@sha256:<digest> to pull, or omit "
            "--base-image to use the pinned default.",
        )
    _pull(docker_engine, reference, deadline)
    if not engine.image_present(docker_engine, reference):
        raise _not_pulled(reference, "it is still absent afterwards")


def _pull(docker_engine: Any, reference: str, deadline: float) -> None:
    import requests

    repository, digest = reference.rsplit("@", 1)
    api = docker_engine.api
    # docker-py's own pull() sends its request without a timeout; this one is bounded by the deadline (the
    # bounded layer reads the progress stream whole, within it and the size cap).
    try:
        response = api.post(
            engine.api_url(api, "/images/create"),
            params={"fromImage": repository, "tag": digest},
            timeout=max(1.0, deadline - time.monotonic()),
        )
        if response.status_code != 200:
            raise _not_pulled(reference, f"the engine answered HTTP {response.status_code}")
    except requests.exceptions.RequestException as exc:
        if isinstance(exc, requests.exceptions.Timeout) and time.monotonic() >= deadline:
            raise _timed_out(reference) from None  # the build's own budget is spent, not a stalled engine
        raise engine.failure(exc) from None
    if any("error" in progress_event(line) for line in response.iter_lines() if line):
        raise _not_pulled(reference, "the engine reported a pull error")


def progress_event(line: bytes) -> dict[str, Any]:
    """One line of the engine's JSON progress stream (pull, build); ``{}`` when it is not an object."""
    try:
        found = json.loads(line)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _not_pulled(reference: str, why: str) -> StreamtError:
    return StreamtError(
        Codes.E406_CONNECTION_REFUSED,
        f"The Docker Engine could not pull the base image {reference} ({why}): it cannot reach a registry that has it.",
        "Give the engine registry access and rerun, or load a Java 17 image into it (docker load) and pass "
        "--base-image sha256:<id> (or set STREAMT_RUNNER_BASE_IMAGE).",
        details={"reason": "base_image_pull_failed"},
    )


def _timed_out(reference: str) -> StreamtError:
    return StreamtError(
        Codes.E407_DEPLOY_ERROR,
        f"runtime build ran out of time while pulling the base image {reference}; no image was created.",
        "Rerun with a larger --timeout, or load the image into the engine first (docker load).",
    )
