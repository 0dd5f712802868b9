"""Progress on stderr: what the executor journals, told as it happens (live on a terminal, plain lines otherwise)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from streamt.apply.executor import execute
from streamt.apply.outcome import DONE, Outcome
from streamt.artifacts import Artifact
from streamt.errors import StreamtError
from streamt.plan.model import CREATE, Action, Observation, Plan
from streamt.progress import LiveLines, PlainLines, Silent, Step, phase, reporter
from streamt.state.local import LocalStateBackend


class Journaled(LocalStateBackend):
    log: list[tuple[str, list[int]]]

    def record_progress_many(self, control: Any, indexes: Any, outcome: str, **kwargs: Any) -> Any:
        self.log.append((outcome, list(indexes)))
        return super().record_progress_many(control, indexes, outcome, **kwargs)


class Heard:
    def __init__(self, backend: Journaled) -> None:
        self.backend = backend
        self.events: list[tuple[str, list[str]]] = []
        self.journal_when_heard: list[int] = []

    def event(self, status: str, actions: Any) -> None:
        self.events.append((status, [a.identity for a in actions]))
        self.journal_when_heard.append(len(self.backend.log))

    def close(self) -> None:
        pass


class Deployer:
    kinds = ("topic",)
    max_batch = 2

    def __init__(self, refuse: str | None = None) -> None:
        self.refuse = refuse

    def apply(self, action: str, pairs: list[Any]) -> dict[str, Outcome]:
        return {a.identity: Outcome("failed" if a.identity == self.refuse else DONE) for _, a in pairs}

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        return True


def _apply(tmp_path: Path, deployer: Deployer, heard: list[Heard]) -> Journaled:
    artifacts = [Artifact("topic", f"t{i}", f"t{i}", {"partitions": 1}) for i in range(3)]
    actions = tuple(Action.for_artifact(CREATE, a, "", Observation("absent")) for a in artifacts)
    backend = Journaled(project_dir=tmp_path, project="p", env="dev")
    backend.log = []
    heard.append(Heard(backend))
    with backend.operation_lock():
        plan = Plan("p", "dev", False, "sha256:m", "sha256:e", actions)
        execute(plan, {(a.kind, a.identity): a for a in artifacts}, {"topic": deployer}, backend, progress=heard[0])
    return backend


def test_progress_hears_each_journal_step_after_it_is_durable(tmp_path: Path) -> None:
    heard: list[Heard] = []
    backend = _apply(tmp_path, Deployer(), heard)
    names = {0: "t0", 1: "t1", 2: "t2"}
    assert heard[0].events == [(status, [names[i] for i in indexes]) for status, indexes in backend.log]
    assert heard[0].journal_when_heard == list(range(1, len(backend.log) + 1))  # never before the write


def test_a_refused_action_and_the_rollback_are_heard_too(tmp_path: Path) -> None:
    heard: list[Heard] = []
    with pytest.raises(StreamtError):
        _apply(tmp_path, Deployer(refuse="t2"), heard)
    assert heard[0].events == [
        ("started", ["t0", "t1"]),
        ("done", ["t0", "t1"]),
        ("started", ["t2"]),
        ("failed", ["t2"]),
        ("rolled_back", ["t1"]),
        ("rolled_back", ["t0"]),
    ]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _action(name: str) -> Action:
    return Action.for_artifact(CREATE, Artifact("topic", name, name, {}), "", Observation("absent"))


def test_plain_lines_are_timestamped_one_per_start_and_finish() -> None:
    out, clock = io.StringIO(), Clock()
    lines = PlainLines(out, clock=clock, now=lambda: datetime(2026, 12, 2, 4, 31, 5, tzinfo=UTC))
    a = _action("orders")
    lines.event("started", [a])
    lines.event("started", [a])  # evidence journalled mid-action: not a second start
    clock.now = 1.25
    lines.event("done", [a])
    lines.event("started", [a])  # a later step of the same thing is a new start
    clock.now = 1.5
    lines.event("done", [a])
    lines.close()
    assert out.getvalue().splitlines() == [
        "2026-12-02T04:31:05Z start create topic orders",
        "2026-12-02T04:31:05Z done create topic orders (1.2s)",
        "2026-12-02T04:31:05Z start create topic orders",
        "2026-12-02T04:31:05Z done create topic orders (0.2s)",
    ]


def test_plain_lines_are_bounded_in_rate_and_say_how_many_were_left_out() -> None:
    out, clock = io.StringIO(), Clock()
    lines = PlainLines(out, max_per_second=3, clock=clock, now=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    lines.event("started", [_action(f"t{i}") for i in range(10)])
    assert len(out.getvalue().splitlines()) == 3
    clock.now = 1.5
    lines.event("done", [_action("t0")])
    shown = [line.split(" ", 1)[1] for line in out.getvalue().splitlines()]
    assert shown[3:] == ["... 7 more progress line(s) not shown", "done create topic t0 (1.5s)"]
    lines.event("done", [_action(f"t{i}") for i in range(1, 10)])
    lines.close()
    assert out.getvalue().splitlines()[-1].endswith("... 7 more progress line(s) not shown")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_live_lines_redraw_the_running_actions_and_print_each_finished_one() -> None:
    out = Terminal()
    live = LiveLines(out, interval=0.01, max_lines=1)
    live.event("started", [_action("a"), _action("b")])
    assert "creating topic a... [0.0s elapsed]\n... and 1 more running\n" in out.getvalue()
    live.event("done", [_action("a")])
    live.close()
    text = out.getvalue()
    assert "\x1b[2F\x1b[J" in text  # the block is erased before it is drawn again
    assert "done create topic a (" in text and text.endswith("\x1b[1F\x1b[J")  # closing leaves nothing behind


def test_a_live_line_never_wraps() -> None:
    out = Terminal()
    live = LiveLines(out)
    live.event("started", [_action("x" * 200)])
    live.close()
    drawn = out.getvalue().split("\n")[0]
    assert len(drawn) == 79 and drawn.endswith("...")


def test_the_reporter_follows_the_stream_and_quiet() -> None:
    assert isinstance(reporter(Terminal(), quiet=False).inner, LiveLines)  # type: ignore[attr-defined]
    assert isinstance(reporter(io.StringIO(), quiet=False).inner, PlainLines)  # type: ignore[attr-defined]
    assert isinstance(reporter(Terminal(), quiet=True), Silent)


class BrokenPipe(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


@pytest.mark.parametrize("terminal", [True, False])
def test_a_failing_stream_silences_progress_and_never_fails_the_work(terminal: bool) -> None:
    progress = reporter(BrokenPipe(terminal), quiet=False)
    progress.event("started", [_action("a")])
    progress.event("done", [_action("a")])
    progress.close()
    assert isinstance(progress.inner, Silent)  # type: ignore[attr-defined]


def test_a_phase_is_started_then_done_or_failed() -> None:
    out = io.StringIO()
    lines = PlainLines(out, now=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    with phase(lines, Step("read", "kafka", "topic metadata")):
        pass
    with pytest.raises(RuntimeError), phase(lines, Step("read", "kafka", "schemas")):
        raise RuntimeError
    shown = [line.split(" ", 1)[1].split(" (")[0] for line in out.getvalue().splitlines()]
    assert shown == [
        "start read kafka topic metadata",
        "done read kafka topic metadata",
        "start read kafka schemas",
        "failed read kafka schemas",
    ]
