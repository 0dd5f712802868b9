"""The engine client over a Unix socket: one kept-alive connection for every endpoint, every bound kept.

A small HTTP/1.1 server on a real Unix socket stands in for the Docker Engine and counts the
connections it accepts. docker-py keys its Unix-socket pools by the whole request URL, so each other
path (or query) opened a connection of its own; streamt's bounded adapter keeps one pool per socket.
A request that stalls on the reused connection still ends at its deadline (``E429``), and the next
request gets a fresh connection.
"""

from __future__ import annotations

import io
import json
import socketserver
import tarfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from streamt.bounded_http import DEADLINE_CAP_ENV
from streamt.errors import StreamtError
from streamt_kstreams import engine


def _archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("plan.json")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"{}"))
    return buffer.getvalue()


class _Engine(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str) -> None:
        self.connections = 0
        self.release = threading.Event()
        super().__init__(path, _Handler)

    def get_request(self) -> tuple[object, object]:
        self.connections += 1
        return super().get_request()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the Docker Engine answers
    server: _Engine

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path.endswith("/containers/stalled/json"):
            self.server.release.wait(30)  # never answers within the test's deadline
            return
        if path == "/version":
            self._send(json.dumps({"ApiVersion": "1.41"}).encode(), "application/json")
        elif path.endswith("/_ping"):
            self._send(b"OK", "text/plain")
        elif path.endswith("/archive"):
            self._send(_archive(), "application/x-tar")
        elif path.endswith("/containers/json") or path.endswith("/images/json"):
            self._send(b"[]", "application/json")
        else:
            self._send(json.dumps({"Id": path.rsplit("/", 2)[-2]}).encode(), "application/json")

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # a Unix-socket peer has no address to log


@pytest.fixture
def fake_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[_Engine]:
    path = str(tmp_path / "docker.sock")
    server = _Engine(path)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


def test_every_endpoint_shares_one_connection(fake_engine: _Engine) -> None:
    client = engine.client()  # GET /version and /_ping
    try:
        client.api.containers(all=True)
        client.api.images()
        client.api.inspect_container("abc")
        client.api.inspect_container("def")
        assert engine.get_archive(client, "abc", "/etc/streamt/plan.json").startswith(b"plan.json")
    finally:
        client.close()
    assert fake_engine.connections == 1


def test_a_stalled_answer_on_the_kept_connection_ends_at_its_deadline(
    fake_engine: _Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DEADLINE_CAP_ENV, "1")
    client = engine.client()
    try:
        started = time.monotonic()
        with pytest.raises(Exception) as caught:
            client.api.inspect_container("stalled")
        seconds = time.monotonic() - started
        error = engine.failure(caught.value)
        assert isinstance(error, StreamtError)
        assert [d.code.code for d in error.diagnostics] == ["E429_SERVICE_DEADLINE_EXCEEDED"]
        assert seconds < 5, f"{seconds:.1f} s"
        assert client.api.inspect_container("abc")["Id"] == "abc"  # the shut-down connection is not reused
    finally:
        client.close()
    assert fake_engine.connections == 2
