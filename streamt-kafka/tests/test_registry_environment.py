"""The registry client reads proxies and .netrc from the environment once, and still honours them (unit).

A local HTTP server stands in for a proxy (it answers any absolute-URI request) or for the registry.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from streamt_kafka.registry_live import RegistryClient


class _Answering(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: ClassVar[list[tuple[str, str | None]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        data = json.dumps({"subject": "s", "version": 3, "id": 7, "schema": "{}"}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def server() -> Iterator[str]:
    _Answering.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Answering)
    # shutdown() returns only at the loop's next poll: 0.5 s by default, per test.
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_an_environment_proxy_still_carries_every_request(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://{server}")
    client = RegistryClient("http://registry.invalid:8081/apis/ccompat/v7")
    assert client.latest("s") == {"subject": "s", "version": 3, "id": 7, "schema": "{}"}
    assert client.latest("t") is not None
    # The proxy was asked for the registry's absolute URL both times (a direct request would not resolve).
    assert [path for path, _ in _Answering.seen] == [
        "http://registry.invalid:8081/apis/ccompat/v7/subjects/s/versions/latest",
        "http://registry.invalid:8081/apis/ccompat/v7/subjects/t/versions/latest",
    ]


def test_no_proxy_for_the_registry_host_is_honoured(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert RegistryClient(f"http://{server}").latest("s") is not None
    assert [path for path, _ in _Answering.seen] == ["/subjects/s/versions/latest"]


def test_netrc_credentials_are_used_when_no_username_is_set(
    server: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login reader password s3cret\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    for name in ("HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert RegistryClient(f"http://{server}").latest("s") is not None
    assert RegistryClient(f"http://{server}", "user", "pw").latest("s") is not None
    expected = [base64.b64encode(pair).decode() for pair in (b"reader:s3cret", b"user:pw")]
    assert [auth for _, auth in _Answering.seen] == [f"Basic {value}" for value in expected]
