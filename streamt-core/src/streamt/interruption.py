"""Signals that end a command: SIGTERM raised as ``Terminated``, and the result shown on the way out.

A command that is interrupted mid-operation (``apply``) must still say what it leaves behind:
it raises ``CommandInterrupted`` with the ``Result`` to render, ``cli.run`` renders it, and the
process then ends the way the signal would have ended it (``end_by``): a supervisor that sent
SIGTERM still sees a termination by SIGTERM.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from streamt.result import Result


class Terminated(BaseException):  # like KeyboardInterrupt: a signal, not an error
    """SIGTERM arrived while a command run was open."""


class CommandInterrupted(BaseException):
    """A command stopped by ``signum``; ``result`` says what it leaves behind."""

    def __init__(self, result: Result, signum: int) -> None:
        super().__init__(result.command)
        self.result = result
        self.signum = signum


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """While open, SIGTERM raises ``Terminated`` (main thread only; elsewhere nothing changes)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread: signals cannot be caught here
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def signal_of(exc: BaseException) -> int:
    """The signal an interruption stands for: SIGTERM for ``Terminated``, SIGINT for Ctrl-C."""
    return signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT


def end_by(signum: int) -> None:
    """End the process by SIGTERM, as it would have ended without the handler; Ctrl-C returns (exit 1)."""
    if signum != signal.SIGTERM:
        return
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
