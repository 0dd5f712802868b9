"""Progress of long work on stderr, fed by the executor's own journal events.

The executor reports each durable step it records (an action ``started``, then ``done``, ``failed``,
``unknown``, ``rolled_back`` ...) to a ``Progress``, and ``streamt test`` each test it starts and
finishes (``passed``, ``failed`` ...), and discovery (``import``, ``init --discover``) and
``docs generate`` their phases;
nothing here reads state. Three reporters:

* ``Silent`` — ``--quiet``, or nothing to show.
* ``LiveLines`` — stderr is a terminal: one live line per running action with its elapsed time,
  redrawn about once a second, and the finished line as each action finishes.
* ``PlainLines`` — stderr is a file or a pipe (CI logs): one timestamped line per start and finish,
  at most ``max_per_second`` lines a second; lines over that are counted and reported as one line.

Progress never touches stdout, so ``-o json`` stays a single envelope.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from typing import Any, Protocol, TextIO

import click

from streamt.values import Value

STARTED = "started"
# How each journal status reads once an action has finished.
FINISHED_WORDS = {
    "done": "done",
    "failed": "failed",
    "unknown": "unknown outcome",
    "rolled_back": "rolled back",
    "rollback_failed": "rollback failed",
}
_VERBS = {
    "create": "creating",
    "update": "updating",
    "delete": "deleting",
    "adopt": "adopting",
    "test": "testing",
    "read": "reading",
    "render": "rendering",
    "write": "writing",
    "recover": "recovering",
}


class Step(Value):
    """A unit of work that is not a plan ``Action`` (a test run, a phase), as progress shows it.

    * ``action`` — what is done (``test``, ``read``, ``await_candidate``); ``kind`` — to what kind of thing.
    * ``identity`` — which one (a test's name, ``topic metadata``, an artifact's identity).
    """

    __slots__ = _fields = ("action", "kind", "identity")

    action: str
    kind: str
    identity: str

    def __init__(self, action: str, kind: str, identity: str) -> None:
        self._fill(action, kind, identity)


class Progress(Protocol):
    """What hears the steps of long work: ``event`` as each step starts or ends, ``close`` at the end."""

    def event(self, status: str, actions: Sequence[Any]) -> None:
        """``actions`` (plan ``Action``s) reached journal ``status``."""

    def close(self) -> None:
        """The work is over (successfully or not): stop redrawing, leave the terminal clean."""


class Silent:
    """The reporter that shows nothing (``--quiet``)."""

    def event(self, status: str, actions: Sequence[Any]) -> None:
        """Hears ``actions`` reach ``status`` and shows nothing."""

    def close(self) -> None:
        """Nothing was drawn, so nothing is left to clear."""


def label(action: Any) -> str:
    return f"{action.action} {action.kind} {action.identity}"


def _elapsed(seconds: float) -> str:
    return f"{seconds:.1f}s" if seconds < 60 else f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


class PlainLines:
    """``2026-12-02T04:31:05Z start create topic orders`` / ``... done create topic orders (1.2s)``."""

    def __init__(
        self,
        stream: TextIO,
        max_per_second: int = 10,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.stream, self.max_per_second, self.clock, self.now = stream, max_per_second, clock, now
        self.started: dict[str, float] = {}
        self.window, self.shown, self.skipped = 0.0, 0, 0

    def event(self, status: str, actions: Sequence[Any]) -> None:
        for action in actions:
            at = self.clock()
            if status == STARTED:
                if action.identity in self.started:  # evidence journalled mid-action: still the same start
                    continue
                self.started[action.identity] = at
                self._line(f"start {label(action)}")
            else:
                took = at - self.started.pop(action.identity, at)  # a later step of the same thing starts anew
                self._line(f"{FINISHED_WORDS.get(status, status)} {label(action)} ({_elapsed(took)})")

    def _line(self, text: str) -> None:
        at = self.clock()
        if at - self.window >= 1.0:
            self.window, self.shown = at, 0
        if self.shown >= self.max_per_second:
            self.skipped += 1
            return
        self._flush_skipped()
        self.shown += 1
        self._write(text)

    def _flush_skipped(self) -> None:
        if self.skipped:
            count, self.skipped = self.skipped, 0
            self._write(f"... {count} more progress line(s) not shown")

    def _write(self, text: str) -> None:
        stamp = self.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        self.stream.write(f"{stamp} {text}\n")
        self.stream.flush()

    def close(self) -> None:
        self._flush_skipped()


class LiveLines:
    """A block of live lines at the bottom of the terminal, one per running action."""

    def __init__(self, stream: TextIO, interval: float = 1.0, max_lines: int = 10) -> None:
        self.stream, self.interval, self.max_lines = stream, interval, max_lines
        self.running: dict[str, tuple[Any, float]] = {}
        self.drawn = 0
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.ticker: threading.Thread | None = None

    def event(self, status: str, actions: Sequence[Any]) -> None:
        with self.lock:
            self._erase()
            now = time.monotonic()
            for action in actions:
                if status == STARTED:
                    self.running.setdefault(action.identity, (action, now))
                    continue
                _, began = self.running.pop(action.identity, (action, now))
                word = FINISHED_WORDS.get(status, status)
                self.stream.write(f"{word} {label(action)} ({_elapsed(now - began)})\n")
            self._draw()
        if self.running and self.ticker is None:
            self.ticker = threading.Thread(target=self._tick, name="streamt-progress", daemon=True)
            self.ticker.start()

    def _tick(self) -> None:
        while not self.stopped.wait(self.interval):
            with self.lock:
                try:
                    self._erase()
                    self._draw()
                except (OSError, ValueError):  # the terminal went away: stop redrawing, the work goes on
                    return

    def _erase(self) -> None:
        if self.drawn:
            self.stream.write(f"\x1b[{self.drawn}F\x1b[J")  # up to the block's first line, clear below
            self.drawn = 0

    def _draw(self) -> None:
        now = time.monotonic()
        entries = list(self.running.values())
        lines = [
            f"{_VERBS.get(a.action, a.action)} {a.kind} {a.identity}... [{_elapsed(now - began)} elapsed]"
            for a, began in entries[: self.max_lines]
        ]
        if len(entries) > self.max_lines:
            lines.append(f"... and {len(entries) - self.max_lines} more running")
        # A wrapped line would take two rows and the next erase would miss one: keep each to the width.
        width = _columns(self.stream) - 1
        for line in lines:
            self.stream.write((line if len(line) <= width else line[: width - 3] + "...") + "\n")
        self.drawn = len(lines)
        self.stream.flush()

    def close(self) -> None:
        self.stopped.set()
        if self.ticker is not None:
            self.ticker.join()
        with self.lock:
            self._erase()
            self.stream.flush()


def _columns(stream: TextIO) -> int:
    """The terminal's width; 80 when it cannot say (a test's stream, a pseudo-terminal with no size set)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80
    return max(20, columns) if columns else 80


@contextmanager
def phase(progress: Progress, step: Step) -> Iterator[None]:
    """One long step of a command that is not an executor action: started, then done (failed if it raises)."""
    progress.event(STARTED, [step])
    try:
        yield
    except BaseException:
        progress.event("failed", [step])
        raise
    progress.event("done", [step])


def for_command(quiet: bool) -> Progress:
    """The reporter of the running command, on its stderr (``streamt.cli.Context``), unless ``--quiet``."""
    context = click.get_current_context(silent=True)
    stream = getattr(context.obj, "stderr", None) if context is not None else None
    return reporter(stream if stream is not None else sys.stderr, quiet)


class Guarded:
    """A reporter that goes quiet when its stream fails (a closed pipe, a vanished terminal): progress is
    told after the journal has recorded the step, and must never fail the work it reports."""

    def __init__(self, inner: Progress) -> None:
        self.inner = inner

    def event(self, status: str, actions: Sequence[Any]) -> None:
        try:
            self.inner.event(status, actions)
        except (OSError, ValueError):
            self.close()
            self.inner = Silent()

    def close(self) -> None:
        with suppress(OSError, ValueError):
            self.inner.close()


def reporter(stream: TextIO, quiet: bool) -> Progress:
    """The reporter for ``stream`` (the command's stderr): live on a terminal, plain lines otherwise."""
    if quiet:
        return Silent()
    isatty = getattr(stream, "isatty", None)
    return Guarded(LiveLines(stream) if callable(isatty) and isatty() else PlainLines(stream))
