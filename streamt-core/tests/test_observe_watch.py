"""``observe --watch``: repeated snapshots, redrawn on a terminal, the last one's health as the exit status."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from streamt.observe.watch import CLEAR, watch
from streamt.result import Result


class Snapshots:
    def __init__(self, *health: bool) -> None:
        self.health = list(health)
        self.taken = 0

    def __call__(self) -> Result:
        healthy = self.health[min(self.taken, len(self.health) - 1)]
        self.taken += 1
        return Result("observe", data={"healthy": healthy}, text=f"snapshot body {self.taken}")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _watch(snapshots: Snapshots, stream: io.StringIO, count: int | None, sleeps: list[float]) -> Result:
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    return watch(snapshots, 2.0, count, stream, False, sleep=sleeps.append, now=lambda: at)


def test_plain_snapshots_follow_one_another_and_the_last_is_the_result() -> None:
    out, sleeps = io.StringIO(), []
    result = _watch(Snapshots(True, True, False), out, 3, sleeps)
    assert sleeps == [2.0, 2.0]  # between snapshots, none after the last
    assert out.getvalue() == (
        "Every 2s: streamt observe (snapshot 1, 2026-01-02T03:04:05Z)\n\nsnapshot body 1\n\n"
        "Every 2s: streamt observe (snapshot 2, 2026-01-02T03:04:05Z)\n\nsnapshot body 2\n\n"
    )
    assert result.text == "Every 2s: streamt observe (snapshot 3, 2026-01-02T03:04:05Z)\n\nsnapshot body 3"
    assert result.exit_code == 1 and result.data["watch"] == {"interval_seconds": 2.0, "snapshots": 3}


def test_on_a_terminal_each_snapshot_clears_the_screen_first() -> None:
    out = Terminal()
    result = _watch(Snapshots(False, True), out, 2, [])
    assert out.getvalue().startswith(CLEAR) and result.text.startswith(CLEAR)
    assert result.exit_code == 0 and result.ok  # healthy at the end: the earlier failure does not count


def test_json_mode_writes_nothing_between_snapshots() -> None:
    out = io.StringIO()
    result = watch(Snapshots(True), 1.0, 3, out, True, sleep=lambda _s: None)
    assert out.getvalue() == "" and result.data["watch"]["snapshots"] == 3


def test_an_interrupt_ends_the_watch_with_the_last_snapshot() -> None:
    def interrupted(_seconds: float) -> None:
        raise KeyboardInterrupt

    result = watch(Snapshots(False), 5.0, None, io.StringIO(), False, sleep=interrupted)
    assert result.exit_code == 1 and result.data["watch"]["snapshots"] == 1

    def never(*_: object) -> Result:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        watch(never, 5.0, None, io.StringIO(), False)


def test_count_needs_watch(streamt_cli, tmp_path) -> None:
    refused = streamt_cli("observe", "-p", tmp_path, "--count", "2")
    assert refused.error_codes == ["E900_USAGE_ERROR"]
