"""``plan`` / ``diff --detailed-exitcode`` against the real broker and registry: 2 on a pending create, 0 on a no-op."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def test_pending_create_exits_2_and_a_noop_exits_0(kafka_project, streamt_cli) -> None:
    project = kafka_project()
    for command in ("plan", "diff"):
        pending = streamt_cli(command, "-p", project.path, "--detailed-exitcode")
        assert pending.exit_code == 2 and pending.envelope["status"] == "ok", pending.envelope
        assert pending.data["counts"]["create"] == 4

    assert streamt_cli("apply", "-p", project.path).ok

    for command in ("plan", "diff"):
        settled = streamt_cli(command, "-p", project.path, "--detailed-exitcode")
        assert settled.exit_code == 0 and settled.ok, settled.envelope
        assert settled.data["counts"]["create"] == 0 and not settled.data["is_apply_blocked"]

    # A declared change against what is live (a partition increase: an update) is 2 again.
    project.model("lookup")["advanced"]["topic"]["partitions"] = 2
    project.write()
    drifted = streamt_cli("plan", "-p", project.path, "--detailed-exitcode")
    assert drifted.exit_code == 2 and drifted.data["counts"]["update"] == 1, drifted.envelope
