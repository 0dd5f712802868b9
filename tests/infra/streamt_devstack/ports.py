"""Free-port selection on loopback.

A port is remembered in the stack state so that a restarted service keeps its address when it
can; otherwise a fresh one is picked.  Ports handed out in this run are never handed out twice.
"""

from __future__ import annotations

import socket
import threading

from .config import HOST

_lock = threading.Lock()
_taken: set[int] = set()


def is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # Without SO_REUSEADDR a port in TIME_WAIT looks busy, which is what a server sees too.
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True


def pick(preferred: int | None = None) -> int:
    with _lock:
        if preferred and preferred not in _taken and is_free(preferred):
            _taken.add(preferred)
            return preferred
        for _ in range(100):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind((HOST, 0))
                port = s.getsockname()[1]
            if port not in _taken:
                _taken.add(port)
                return port
        raise RuntimeError("could not find a free port on loopback")
