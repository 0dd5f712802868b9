"""A same-host exclusive file lock with a bounded wait.

``flock`` is released by the kernel when the holding process dies, so a
crashed apply never leaves a stale lock behind; the durable control sidecar,
not the lock, is what records an unfinished operation. The lock does not
protect against writers on other hosts — that is what the PostgreSQL backend
is for.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from streamt.errors import Codes, StreamtError

_POLL_SECONDS = 0.05


@contextlib.contextmanager
def exclusive_lock(path: Path, timeout_seconds: float) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` or fail with ``E422_STATE_LOCK_TIMEOUT``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StreamtError(
                        Codes.E422_STATE_LOCK_TIMEOUT,
                        f"Another streamt operation held the state lock for more than {timeout_seconds:g} seconds.",
                        "Wait for the other operation to finish and retry; never delete the lock file.",
                    ) from None
                time.sleep(_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
