"""One bounded HTTP layer for every service client streamt owns: a total deadline, a size cap, a depth cap.

``requests`` bounds each socket operation, not a request: a server that sends one byte per
second restarts the read timeout with every byte and never ends, and an endless body is read
into memory until the process dies. ``BoundedAdapter`` (mounted on a ``requests`` session) bounds
the whole exchange instead:

* **a total deadline** per request, retries included: when it expires, the request's sockets are
  shut down, whatever is blocked on them returns, and the request raises ``DeadlineExceeded``;
* **a response-size cap**: a body (after content decoding) longer than ``max_bytes`` is abandoned
  and the request raises ``ResponseInvalid`` without reading the rest;
* **an answer that is not HTTP** (a garbage status line, endless headers) raises ``ResponseInvalid``;
* optionally **a depth cap** on every JSON answer (``max_depth``), for a client whose library parses
  the body itself (docker-py): deeper nesting raises ``ResponseInvalid`` before anything parses it.

``watched_pool`` makes any ``urllib3`` connection-pool class take part in the deadline, for an adapter
whose pools are its own (docker-py's Unix-socket adapter).

``json_body`` parses a body after checking its nesting depth, so deeply nested JSON is
``ResponseInvalid`` rather than a ``RecursionError`` anywhere later. ``bounded_error`` turns
either exception into the one code every client reports: ``E429_SERVICE_DEADLINE_EXCEEDED`` or
``E430_SERVICE_RESPONSE_INVALID`` (a refused connection stays ``E406_CONNECTION_REFUSED``).
Both are ``requests`` exceptions, and ``DeadlineExceeded`` a ``Timeout``: a client that classifies
a write's outcome with ``never_sent`` treats them as "may have been sent".

``STREAMT_TEST_HTTP_DEADLINE`` (seconds) caps every deadline of the layer; it exists so the
hostile-service tests finish quickly, and is read here only.

Imported only by code that talks HTTP (every such caller already has ``requests``).
"""

from __future__ import annotations

import heapq
import http.client
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from itertools import accumulate
from typing import Any

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from streamt.errors import Codes, StreamtError
from streamt.log import provider_request

DEADLINE_CAP_ENV = "STREAMT_TEST_HTTP_DEADLINE"
MAX_BYTES = 16 * 1024 * 1024  # a registry schema, a job list of thousands of jobs: far below this
MAX_DEPTH = 64  # every answer streamt reads nests a handful of levels
_CHUNK = 64 * 1024


def capped_deadline(seconds: float) -> float:
    """``seconds``, or less when the test-only ``STREAMT_TEST_HTTP_DEADLINE`` caps it."""
    cap = os.environ.get(DEADLINE_CAP_ENV)
    try:
        return min(seconds, float(cap)) if cap else seconds
    except ValueError:
        return seconds


class DeadlineExceeded(requests.exceptions.Timeout):
    """The request's total deadline expired (however slowly the service was answering)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"no complete answer within {seconds:g} s")
        self.seconds = seconds


class ResponseInvalid(requests.exceptions.RequestException):
    """The answer is not one streamt accepts: not HTTP, larger than the cap, or nested too deeply."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Watch:
    """The connections one request uses, shut down when its deadline expires."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: list[Any] = []
        self._done = False
        self.expired = False

    def add(self, connection: Any) -> None:
        with self._lock:
            if self.expired:  # a retry after the deadline: no new attempt
                raise urllib3.exceptions.TimeoutError("the request's deadline expired")
            self._connections.append(connection)

    def expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            for connection in self._connections:
                sock = getattr(connection, "sock", None)
                if sock is not None:
                    with suppress(OSError):  # the plain socket's shutdown: it wakes a blocked TLS read too
                        socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def finish(self) -> None:
        with self._lock:
            self._done = True
            self._connections.clear()  # the pool keeps what it reuses; the watch keeps nothing alive


class _Watchdog:
    """One daemon thread that expires every watch at its deadline (a thread per request would cost more
    than a registry read: observing 1,000 subjects sends thousands of requests)."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._due: list[tuple[float, int, _Watch]] = []
        self._count = 0
        self._thread: threading.Thread | None = None

    def watch(self, watch: _Watch, seconds: float) -> None:
        with self._wake:
            self._count += 1
            heapq.heappush(self._due, (time.monotonic() + seconds, self._count, watch))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="streamt-http-deadlines", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._due or self._due[0][0] > time.monotonic():
                    self._wake.wait(self._due[0][0] - time.monotonic() if self._due else None)
                _, _, watch = heapq.heappop(self._due)
            watch.expire()  # outside the lock: shutting a socket down may take a moment


_watchdog = _Watchdog()
_active = threading.local()  # the _Watch of the request this thread is sending, if any


def _watched(connection: Any) -> Any:
    watch = getattr(_active, "watch", None)
    if watch is not None:
        watch.add(connection)
    return connection


def watched_pool(pool: type[HTTPConnectionPool]) -> type[HTTPConnectionPool]:
    """A subclass of ``pool`` whose connections a ``BoundedAdapter`` request shuts down at its deadline."""

    class Watched(pool):  # type: ignore[valid-type,misc]
        def _get_conn(self, timeout: float | None = None) -> Any:
            return _watched(super()._get_conn(timeout))

    Watched.__name__ = Watched.__qualname__ = f"Watched{pool.__name__}"
    return Watched


_WATCHED_POOLS = {"http": watched_pool(HTTPConnectionPool), "https": watched_pool(HTTPSConnectionPool)}


class BoundedAdapter(HTTPAdapter):
    """A ``requests`` transport adapter with a total deadline and a response-size cap per request.

    ``deadline`` bounds everything from connecting to the last body byte, retries included (a
    request's own ``timeout=`` in seconds may make it shorter, never longer); ``connect_timeout``
    bounds the TCP/TLS handshake alone (never more than the deadline); ``provider``, when given, names
    the provider in the debug line each request gets (``streamt.log.provider_request``); ``max_depth``,
    when given, caps the nesting of every answer whose Content-Type is JSON.
    """

    def __init__(
        self,
        deadline: float,
        *,
        connect_timeout: float = 5.0,
        max_bytes: int = MAX_BYTES,
        provider: str | None = None,
        max_depth: int | None = None,
        **kwargs: Any,
    ) -> None:
        self.deadline = deadline
        self.connect_timeout = connect_timeout
        self.max_bytes = max_bytes
        self.provider = provider
        self.max_depth = max_depth
        super().__init__(**kwargs)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: bool | str = True,
        cert: str | tuple[str, str] | None = None,
        proxies: dict[str, str] | None = None,
    ) -> requests.Response:
        # The one place where a request's method, path, final status and duration are all known, so
        # the debug line of a provider's request (``provider_request``) is written here, not per client.
        if self.provider is None:
            return self._send_bounded(request, timeout, verify, cert, proxies)
        with provider_request(self.provider, request.method or "", request.path_url) as logged:
            response = self._send_bounded(request, timeout, verify, cert, proxies)
            logged.status = response.status_code
        return response

    def _send_bounded(
        self,
        request: requests.PreparedRequest,
        timeout: Any,
        verify: bool | str,
        cert: str | tuple[str, str] | None,
        proxies: dict[str, str] | None,
    ) -> requests.Response:
        # A caller's ``timeout`` (seconds) may shorten the deadline for one request, never lengthen it.
        shorter = timeout if isinstance(timeout, int | float) and not isinstance(timeout, bool) else self.deadline
        deadline = capped_deadline(min(shorter, self.deadline))
        watch = _Watch()
        _active.watch = watch
        _watchdog.watch(watch, deadline)
        ends = time.monotonic() + deadline
        try:
            response = super().send(
                request,
                stream=True,
                timeout=(min(self.connect_timeout, deadline), deadline),
                verify=verify,
                cert=cert,
                proxies=proxies,
            )
            response._content = self._read_body(response)
            self._check_depth(response)
            if watch.expired:  # a shut-down socket can look like the end of an answer
                raise DeadlineExceeded(deadline)
        except DeadlineExceeded:
            raise
        except requests.exceptions.RequestException as exc:
            if watch.expired or time.monotonic() >= ends:  # the read timeout may fire just before the watch
                raise DeadlineExceeded(deadline) from None
            if not isinstance(exc, ResponseInvalid) and _not_http(exc):
                raise ResponseInvalid("the answer is not HTTP") from None
            raise
        finally:
            watch.finish()  # a finished watch stays queued until its deadline, then expires as a no-op
            _active.watch = None
        return response

    def _check_depth(self, response: requests.Response) -> None:
        if self.max_depth is None or "json" not in response.headers.get("Content-Type", ""):
            return
        if json_depth(response.content) > self.max_depth:
            raise ResponseInvalid(f"the answer nests deeper than {self.max_depth} levels")

    def _read_body(self, response: requests.Response) -> bytes:
        body = bytearray()
        chunks = response.raw.stream(_CHUNK, decode_content=True)
        while len(body) <= self.max_bytes:
            try:
                chunk = next(chunks, None)
            except (urllib3.exceptions.HTTPError, OSError, http.client.HTTPException) as exc:
                response.close()
                raise requests.exceptions.ConnectionError(exc) from None
            if chunk is None:
                break
            body += chunk
        else:
            response.close()
            raise ResponseInvalid(f"the answer is larger than {self.max_bytes // (1024 * 1024)} MiB")
        response._content_consumed = True
        response.raw.release_conn()
        return bytes(body)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it wraps (``requests`` and ``urllib3`` keep the cause in ``args`` or ``reason``)."""
    seen: set[int] = set()
    pending: list[Any] = [exc]
    while pending:
        item = pending.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        pending.extend([*item.args, getattr(item, "reason", None), item.__cause__, item.__context__])


def _not_http(exc: BaseException) -> bool:
    """Whether the service answered with something other than HTTP (a dropped connection is not that)."""
    for cause in _causes(exc):
        if isinstance(cause, ConnectionError):  # RemoteDisconnected is both: it is a reset
            return False
    return any(
        isinstance(cause, http.client.HTTPException | urllib3.exceptions.HeaderParsingError) for cause in _causes(exc)
    )


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\x00\x00")


def json_depth(body: bytes) -> int:
    """How deeply the arrays and objects of a JSON text nest (brackets inside strings do not count)."""
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS).translate(_STEP)
    return max(accumulate(1 if step else -1 for step in brackets), default=0)


def json_body(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """A response body parsed as JSON: ``None`` when empty, ``ResponseInvalid`` when nested deeper than
    ``max_depth``, ``ValueError`` when it is not JSON (each client says what that means for it)."""
    if not body:
        return None
    if json_depth(body) > max_depth:
        raise ResponseInvalid(f"the answer nests deeper than {max_depth} levels")
    return requests.compat.json.loads(body)


def json_or_none(body: bytes) -> Any:
    """``json_body``, with ``None`` for a body that is not JSON (a client that judges the status alone)."""
    try:
        return json_body(body)
    except ValueError:
        return None


def bounded_session(deadline: float, *, pool_size: int = 10, **adapter: Any) -> requests.Session:
    """A ``requests`` session whose every request goes through one ``BoundedAdapter``."""
    session = requests.Session()
    mounted = BoundedAdapter(deadline, pool_connections=1, pool_maxsize=pool_size, **adapter)
    session.mount("http://", mounted)
    session.mount("https://", mounted)
    return session


def bounded_error(exc: BaseException, service: str, setting: str) -> StreamtError | None:
    """The coded error of a bounded-layer failure (``E429`` or ``E430``), else ``None``.

    ``service`` names the service as a sentence subject ("The Schema Registry"); ``setting`` is the
    configuration key that points at it. Neither the URL nor the answer is shown.
    """
    if isinstance(exc, DeadlineExceeded):
        return StreamtError(
            Codes.E429_SERVICE_DEADLINE_EXCEEDED,
            f"{service} did not answer completely within {exc.seconds:g} s.",
            f"Check that {setting} points at a healthy service; a slow or stalled one is not waited on.",
        )
    if isinstance(exc, ResponseInvalid):
        return StreamtError(
            Codes.E430_SERVICE_RESPONSE_INVALID,
            f"{service} sent an answer streamt does not accept: {exc.reason}.",
            f"Check that {setting} points at the right service; the answer is not shown.",
        )
    return None
