"""``observe --watch`` against the real broker: bounded by ``--count``, one envelope in JSON mode."""

from __future__ import annotations

import time

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def test_watch_takes_count_snapshots_and_exits_with_the_last_ones_health(
    kafka_project, streamt_cli, streamt_cli_text
) -> None:
    project = kafka_project()
    assert streamt_cli("apply", "-p", project.path).ok
    shown = streamt_cli_text("observe", "-p", project.path, "--watch", "1", "--count", "2")
    assert shown.exit_code == 0, shown.stdout + shown.stderr
    assert shown.stdout.count("Every 1s: streamt observe (snapshot ") == 2
    assert shown.stdout.count(f"topic {project.topic('retry')}") == 2  # each snapshot is a full table
    assert "\x1b[" not in shown.stdout  # not a terminal: plain snapshots, no redraw

    watched = streamt_cli("observe", "-p", project.path, "--watch", "1", "--count", "2")
    assert watched.ok and watched.data["healthy"] is True
    assert watched.data["watch"] == {"interval_seconds": 1.0, "snapshots": 2}

    project.cleanup()  # the topics go: the last snapshot is unhealthy, and so is the exit status
    deadline = time.monotonic() + 30  # topic deletion completes asynchronously on the broker
    while True:
        gone = streamt_cli("observe", "-p", project.path, "--watch", "1", "--count", "1")
        if gone.exit_code == 1 or time.monotonic() > deadline:
            break
    assert gone.exit_code == 1 and gone.data["healthy"] is False, gone.envelope
    assert gone.envelope["status"] == "error" and gone.envelope["errors"] == []
