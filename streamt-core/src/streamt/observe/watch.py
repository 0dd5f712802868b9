"""``observe --watch``: snapshots every few seconds until interrupted (or ``--count`` of them).

On a terminal each snapshot replaces the last (the screen is cleared first); otherwise each is
written after the previous one under a timestamped header, as a log shows it. The command's
result is the last snapshot: its text, its data, and its health as the exit status. In ``-o json``
mode nothing is written between snapshots, so stdout is still the one envelope.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TextIO

from streamt.result import Result
from streamt.values import replace

CLEAR = "\x1b[H\x1b[2J"  # cursor home, erase the screen


def watch(
    snapshot: Callable[[], Result],
    interval: float,
    count: int | None,
    stream: TextIO,
    quiet_stream: bool,
    sleep: Callable[[float], None] = time.sleep,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> Result:
    """Take ``snapshot()`` every ``interval`` seconds, ``count`` times (``None``: until interrupted).

    ``stream`` receives every snapshot but the last (the renderer writes that one as the result);
    ``quiet_stream`` (``-o json``) writes none.
    """
    isatty = getattr(stream, "isatty", None)
    terminal = callable(isatty) and bool(isatty())
    taken = 0
    last: Result | None = None
    text = ""
    try:
        while True:
            last = snapshot()
            taken += 1
            header = f"Every {interval:g}s: streamt observe (snapshot {taken}, {now():%Y-%m-%dT%H:%M:%SZ})"
            text = f"{CLEAR if terminal else ''}{header}\n\n{last.text}"
            if count is not None and taken >= count:
                break
            if not quiet_stream:
                stream.write(text + ("\n" if terminal else "\n\n"))
                stream.flush()
            sleep(interval)
    except KeyboardInterrupt:
        if last is None:
            raise
    assert last is not None
    healthy = last.data.get("healthy") is not False
    data = {**last.data, "watch": {"interval_seconds": interval, "snapshots": taken}}
    return replace(last, data=data, text=text, force_exit=0 if healthy else 1)
