"""A hostile HTTP service on 127.0.0.1: one misbehaviour per server, whatever the request.

* ``stall`` reads the request and never answers;
* ``drip`` answers a status line, then one header byte every 50 ms, for ever (a per-socket-read
  timeout never fires);
* ``endless`` answers 200 with a body that never ends;
* ``deep`` answers 200 with JSON nested 100,000 levels deep;
* ``garbage`` answers bytes that are not HTTP, then closes;
* ``reset`` reads the request and resets the connection (RST).

``silent_listener`` is the protocol-neutral stall: it accepts TCP connections and never reads or
answers a byte (a hung Kafka broker, or a listener of another protocol).

Every handler stops when the server is closed, so a test leaves no thread behind.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress

MODES = ("stall", "drip", "endless", "deep", "garbage", "reset")
DEEP = 100_000


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, mode: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = mode
        self.closing = threading.Event()


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        sock = self.request
        sock.settimeout(5)
        with suppress(OSError):
            _read_request(sock)
            getattr(self, "_" + self.server.mode)(sock)

    def _stall(self, sock: socket.socket) -> None:
        self.server.closing.wait()

    def _drip(self, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nX-Drip: ")
        while not self.server.closing.wait(0.05):
            sock.sendall(b"a")

    def _endless(self, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[")
        chunk = b'"' + b"x" * 65_000 + b'",'
        while not self.server.closing.is_set():
            sock.sendall(chunk)

    def _deep(self, sock: socket.socket) -> None:
        body = b"[" * DEEP + b"]" * DEEP
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        sock.sendall(head.encode() + body)

    def _garbage(self, sock: socket.socket) -> None:
        sock.sendall(b"\x00\xff\x13NOT-HTTP garbage \x1b[2J\r\n\r\n")

    def _reset(self, sock: socket.socket) -> None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _read_request(sock: socket.socket) -> None:
    """Read up to the end of the request head and any body its Content-Length announces."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return
        body += chunk


@contextmanager
def fault_server(mode: str) -> Iterator[str]:
    """``http://127.0.0.1:<port>`` of a server that misbehaves as ``mode`` says, until the block ends."""
    assert mode in MODES, mode
    server = _Server(mode)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.closing.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextmanager
def silent_listener() -> Iterator[str]:
    """``127.0.0.1:<port>`` of a listener that accepts connections and never reads or answers, until the block ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    closing = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while not closing.is_set():
            with suppress(TimeoutError, OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        closing.set()
        thread.join(5)
        for connection in held:
            connection.close()
        listener.close()
