"""Reaching the Docker Engine: one client per command, every failure a structured ``E406``.

The engine is found the way the Docker CLI finds it (``DOCKER_HOST``, else the default local
socket). Error messages never repeat the engine's own text or the host URL, which may carry
credentials (``tcp://user:password@...``): they say that the engine did not answer and how to
point streamt at one.
"""

from __future__ import annotations

import re
from typing import Any

from streamt.sdk import Codes, StreamtError

# The pinned forms `runtime.kafka_streams.image` and `--base-image` accept: an image ID or a digest.
IMAGE_ID_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
IMAGE_REF_RE = re.compile(r"^(sha256:[0-9a-f]{64}|[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64})$")
PING_SECONDS = 10.0


def unreachable() -> StreamtError:
    return StreamtError(
        Codes.E406_CONNECTION_REFUSED,
        "The Docker Engine does not answer.",
        "Start Docker, or set DOCKER_HOST to the engine streamt should use (for the local stack: "
        '`eval "$(./dev stack env)"`).',
    )


def client(timeout: float = PING_SECONDS) -> Any:
    """A connected ``docker.DockerClient``; ``E406`` when the engine cannot be reached."""
    import docker  # heavy: only commands that talk to the engine pay for it

    try:
        engine = docker.from_env(timeout=int(max(1, timeout)))
        engine.ping()
    except Exception:
        raise unreachable() from None
    return engine


def image_present(engine: Any, reference: str) -> bool:
    """Is the image on the engine? (``False`` when absent; ``E406`` when the engine stops answering.)"""
    import docker

    try:
        engine.images.get(reference)
    except docker.errors.ImageNotFound:
        return False
    except Exception:
        raise unreachable() from None
    return True
