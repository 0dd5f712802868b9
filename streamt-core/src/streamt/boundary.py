"""Test-only pauses and crashes at operation boundaries; inert in production.

Crash-safety tests must stop an apply exactly between two durable writes.
Two environment variables, read only when set, make that possible:

* ``STREAMT_TEST_KILL_AT_BOUNDARY=N`` — the process kills itself with
  ``SIGKILL`` when it reaches its N-th boundary (1-based);
* ``STREAMT_TEST_BOUNDARY_DELAY=SECONDS`` — sleep at every boundary (a
  second apply then meets a held lock), or only at the N-th with
  ``STREAMT_TEST_DELAY_AT_BOUNDARY=N`` (a test that pauses the process there
  need not wait at all the others);
* ``STREAMT_TEST_BOUNDARY_REPORT=PATH`` — append the boundary's number to
  PATH on reaching it, before any delay (a test then waits for the process
  to be *at* a boundary instead of sleeping a guessed time).

A boundary is a point after a durable write: the intent recorded, progress
recorded, a history entry written, the state file replaced, the marker cleared.
With neither variable set, ``boundary()`` returns at once and does nothing.
"""

from __future__ import annotations

import os

_KILL = "STREAMT_TEST_KILL_AT_BOUNDARY"
_DELAY = "STREAMT_TEST_BOUNDARY_DELAY"
_DELAY_AT = "STREAMT_TEST_DELAY_AT_BOUNDARY"
_REPORT = "STREAMT_TEST_BOUNDARY_REPORT"
_reached = 0


def boundary() -> None:
    """Mark a point between two durable writes (crash tests stop or slow the process here)."""
    global _reached
    kill_at, delay, report = os.environ.get(_KILL), os.environ.get(_DELAY), os.environ.get(_REPORT)
    if kill_at is None and delay is None and report is None:
        return
    _reached += 1
    if report is not None:
        with open(report, "a", encoding="utf-8") as reached:
            reached.write(f"{_reached}\n")
    delay_at = os.environ.get(_DELAY_AT)
    if delay is not None and (delay_at is None or _reached == int(delay_at)):
        import time

        time.sleep(float(delay))
    if kill_at is not None and _reached == int(kill_at):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
