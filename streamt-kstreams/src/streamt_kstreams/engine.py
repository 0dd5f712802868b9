"""Reaching the Docker Engine: one client per command, every request bounded, every failure coded.

The engine is found the way the Docker CLI finds it (``DOCKER_HOST``, else the default local
socket). Every Engine API request goes through ``streamt.bounded_http``: a total deadline (the
client's ``timeout``, or a request's own, never more than ``REQUEST_DEADLINE``), a response-size cap
(build and pull progress streams included: they are read whole, within both bounds) and a JSON depth
cap, with the codes of every other service: ``E429`` for a deadline, ``E430`` for an answer that is
not acceptable, ``E406`` when the engine cannot be reached. docker-py would ask the engine for its API
version while it is built, before any bound exists, so the client is built with a provisional version
and asks for the real one through the bounded layer. An ``ssh://`` or ``npipe://`` engine keeps
docker-py's own transport (per-socket timeouts only).

Error messages never repeat the engine's own text or the host URL, which may carry credentials
(``tcp://user:password@...``): they say that the engine did not answer and how to point streamt at one.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from streamt.sdk import MAX_DEPTH, BoundedAdapter, Codes, StreamtError, bounded_error, watched_pool

from streamt_kstreams.limits import MAX_TIMEOUT

# The pinned forms `runtime.kafka_streams.image` and `--base-image` accept: an image ID or a digest.
IMAGE_ID_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
IMAGE_REF_RE = re.compile(r"^(sha256:[0-9a-f]{64}|[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64})$")
PING_SECONDS = 10.0
REQUEST_DEADLINE = float(MAX_TIMEOUT)  # the longest one request may take: a build within `runtime build --timeout`
CONNECT_SECONDS = 5.0
HOST_SETTING = "DOCKER_HOST"


def unreachable() -> StreamtError:
    return StreamtError(
        Codes.E406_CONNECTION_REFUSED,
        "The Docker Engine does not answer.",
        "Start Docker, or set DOCKER_HOST to the engine streamt should use (for the local stack: "
        '`eval "$(./dev stack env)"`).',
    )


def failure(exc: BaseException) -> StreamtError:
    """The coded error of a failed Engine API request: ``E429``/``E430`` from the bounded layer, else ``E406``."""
    return bounded_error(exc, "The Docker Engine", HOST_SETTING) or unreachable()


def connect(timeout: float = PING_SECONDS) -> Any:
    """A ``docker.DockerClient`` on the bounded layer, before any request (``E406`` for an unusable host)."""
    import docker  # heavy: only commands that talk to the engine pay for it

    try:
        engine = docker.from_env(timeout=int(max(1, timeout)), version=docker.constants.DEFAULT_DOCKER_API_VERSION)
    except Exception:
        raise unreachable() from None
    _bound(engine.api)
    return engine


def client(timeout: float = PING_SECONDS) -> Any:
    """A connected ``docker.DockerClient``: the engine's API version is known and it answered a ping."""
    engine = connect(timeout)
    try:
        # What docker-py's version="auto" asks while it is built, asked here through the bounded layer.
        engine.api._version = str(engine.api.version(api_version=False)["ApiVersion"])
        engine.ping()
    except Exception as exc:
        engine.close()
        raise failure(exc) from None
    return engine


def _bound(api: Any) -> None:
    """Mount bounded adapters on docker-py's session for a Unix socket or a TCP (TLS) engine."""
    from docker.transport import UnixHTTPAdapter

    bounds: dict[str, Any] = {"deadline": REQUEST_DEADLINE, "connect_timeout": CONNECT_SECONDS, "max_depth": MAX_DEPTH}
    if api.base_url.startswith(("http://", "https://")):
        for prefix in ("http://", "https://"):
            api.mount(prefix, BoundedAdapter(**bounds))
        return
    current = api.adapters.get("http+docker://")
    if isinstance(current, UnixHTTPAdapter):
        bounded = _unix_adapter()(socket_url=current.socket_path, timeout=current.timeout, **bounds)
        api._custom_adapter = bounded  # docker-py closes this one with the client
        api.mount("http+docker://", bounded)
        current.close()


@functools.cache
def _unix_adapter() -> type:
    """docker-py's Unix-socket adapter on the bounded layer (a class built once docker-py is imported)."""
    from docker.transport import UnixHTTPAdapter
    from docker.transport.unixconn import UnixHTTPConnectionPool

    pool = watched_pool(UnixHTTPConnectionPool)

    class BoundedUnixAdapter(BoundedAdapter, UnixHTTPAdapter):  # type: ignore[misc]
        # Its pools are its own, not a pool manager's: built here from the watched pool class. One pool
        # for the one socket: docker-py keys its pools by the whole request URL, so every other path or
        # query opened (and kept) a connection of its own.
        def get_connection(self, url: str, proxies: Any = None) -> Any:
            with self.pools.lock:
                found = self.pools.get(self.socket_path)
                if found is None:
                    found = pool(url, self.socket_path, self.timeout, maxsize=self.max_pool_size)
                    self.pools[self.socket_path] = found
            return found

    return BoundedUnixAdapter


def api_url(api: Any, path: str, *args: str) -> str:
    """The versioned URL of an Engine API ``path`` (``{0}`` placeholders filled, quoted) for a raw request.

    docker-py's own builder (``APIClient._url``), private: its one use is here, for the requests
    docker-py would otherwise stream from the raw socket, past the bounded layer's size cap.
    """
    return str(api._url(path, *args))


def get_archive(engine: Any, container_id: str, path: str) -> bytes:
    """``path`` in the container as the engine's tar stream, read as one bounded request.

    docker-py's ``get_archive`` streams from the raw socket, around the size cap and the deadline.
    Raises what the request raises (``requests.HTTPError`` for a refusal such as a missing path).
    """
    api = engine.api
    response = api.get(api_url(api, "/containers/{0}/archive", container_id), params={"path": path})
    response.raise_for_status()
    return bytes(response.content)


def image_present(engine: Any, reference: str) -> bool:
    """Is the image on the engine? (``False`` when absent; ``E406`` when the engine stops answering.)"""
    import docker

    try:
        engine.images.get(reference)
    except docker.errors.ImageNotFound:
        return False
    except Exception as exc:
        raise failure(exc) from None
    return True
