"""A loopback HTTP proxy that records every request it forwards to a real service.

Tests point a runtime URL at it to prove which calls a command makes (method and raw path, with
its percent-encoding), and may rewrite one response to simulate a change between two reads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests

# (method, path, status, body) -> (status, body) to alter what the client sees, or None to drop the
# connection after the upstream answered (a lost response)
Rewrite = Callable[[str, str, int, bytes], tuple[int, bytes] | None]


class Recorder:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.calls: list[tuple[str, str]] = []
        self.rewrite: Rewrite | None = None
        self.url = ""


@contextmanager
def recording_proxy(upstream: str) -> Iterator[Recorder]:
    recorder = Recorder(upstream)

    class Handler(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            recorder.calls.append((self.command, self.path))
            headers = {
                k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type", "accept")
            }
            answer = requests.request(
                self.command,
                recorder.upstream + self.path,
                data=body,
                headers=headers,
                timeout=60,
                allow_redirects=False,
            )
            status, content = answer.status_code, answer.content
            if recorder.rewrite is not None:
                rewritten = recorder.rewrite(self.command, self.path, status, content)
                if rewritten is None:
                    self.close_connection = True
                    return
                status, content = rewritten
            self.send_response(status)
            self.send_header("Content-Type", answer.headers.get("Content-Type", "application/json"))
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_PUT = do_POST = do_DELETE = _forward

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet test output

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    recorder.url = f"http://127.0.0.1:{server.server_address[1]}"
    # shutdown() returns only at the loop's next poll: 0.5 s by default, per test.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()
