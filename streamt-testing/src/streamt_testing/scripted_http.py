"""A real HTTP server on 127.0.0.1, in a thread of the test process, that answers what a test says.

For a client's tests that need the wire (the bounded HTTP layer, status handling, what was sent)
but no service: no mock of ``requests``. ``answer(method, raw path)`` gives ``(status, JSON body)``,
or ``None`` to read the request and drop the connection (a lost answer).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[str, str], tuple[int, Any] | None]


@contextmanager
def json_server(answer: Answer) -> Iterator[str]:
    """A context manager: a real HTTP server on 127.0.0.1 answering ``answer(method, raw path)`` (``(status,
    JSON body)``, or ``None`` to drop the connection), its base URL while the context lasts."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            reply = answer(self.command, self.path)
            if reply is None:
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            status, body = reply
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

        def log_message(self, *_args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # shutdown() returns only at the loop's next poll: 0.5 s by default, per test.
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
