"""apply's progress lines on stderr against the real broker and registry; ``--quiet`` silences them.

The terminal (pseudo-terminal) and CI-log journeys of a topic + Flink job + connector project are in
``test_quickstart_demo.py``.
"""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def test_plain_progress_names_each_created_artifact_and_quiet_shows_none(kafka_project, streamt_cli_text) -> None:
    shown, quiet = kafka_project("shown"), kafka_project("quiet")
    applied = streamt_cli_text("apply", "-p", shown.path)
    assert applied.exit_code == 0, applied.stderr
    progress = [line for line in applied.stderr.splitlines() if re.match(r"^\d{4}-\d\d-\d\dT\S+Z (start|done) ", line)]
    created = [shown.topic("orders"), shown.topic("orders") + "-value", shown.topic("retry"), shown.topic("lookup")]
    for identity in created:
        assert sum(line.endswith(f" {identity}") and " start create " in line for line in progress) == 1, progress
        assert sum(" done create " in line and f" {identity} (" in line for line in progress) == 1, progress
    assert len(progress) == 2 * len(created)
    assert "Summary: 4 created" in applied.stdout and "start create" not in applied.stdout

    silent = streamt_cli_text("apply", "-p", quiet.path, "--quiet")
    assert silent.exit_code == 0 and "Summary: 4 created" in silent.stdout
    assert " start create " not in silent.stderr and " done create " not in silent.stderr
    again = streamt_cli_text("apply", "-p", shown.path)
    assert " start " not in again.stderr  # a no-op apply runs no action, so it reports none
