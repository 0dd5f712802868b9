"""``streamt show RESOURCE NAME --diff``: declared vs live for one resource, with the plan's evidence.

Against the devstack broker and registry; read-only (no state is written by show).
"""

from __future__ import annotations

import json

import pytest

REGISTRY_SENTINEL = "sr-pw-sentinel-7f3a"  # the password tests/e2e/conftest.py gives the registry

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def artifacts(outcome) -> dict[str, dict]:
    assert outcome.ok, outcome.envelope
    return {f"{a['kind']} {a['identity']}": a for a in outcome.data["diff"]["artifacts"]}


def test_show_diff_before_and_after_apply_and_on_drift(kafka_project, streamt_cli, streamt_process) -> None:
    p = kafka_project()
    retry = f"topic {p.topic('retry')}"
    before = artifacts(streamt_cli("show", "model", "retry", "-p", p.path, "--diff"))
    assert list(before) == [retry] and before[retry]["action"] == "create"
    assert before[retry]["evidence"]["observation"]["status"] == "absent"
    assert not (p.path / ".streamt").exists()  # show --diff writes no state

    assert streamt_cli("apply", "-p", p.path).ok
    synced = artifacts(streamt_cli("show", "model", "retry", "-p", p.path, "--diff"))
    assert synced[retry]["action"] == "noop"
    assert synced[retry]["evidence"]["observation"]["spec"]["config"]["retention.ms"] == "3600000"

    source = artifacts(streamt_cli("show", "source", "orders_raw", "-p", p.path, "--diff"))
    subject = f"schema {p.topic('orders')}-value"
    assert source[subject]["action"] == "noop" and source[f"topic {p.topic('orders')}"]["action"] == "noop"
    assert source[subject]["evidence"]["observation"]["spec"]["version"] == 1

    p.model("retry")["advanced"]["topic"]["config"]["retention.ms"] = 60000
    p.write()
    drift = streamt_cli("show", "model", "retry", "-p", p.path, "--diff")
    changed = artifacts(drift)[retry]
    assert changed["action"] == "update" and "retention.ms" in changed["summary"]
    text = streamt_process("show", "model", "retry", "-p", p.path, "--diff")
    assert REGISTRY_SENTINEL not in text.stdout + text.stderr + json.dumps(drift.envelope)

    external = artifacts(streamt_cli("show", "source", "shop", "-p", p.path, "--diff"))
    assert external[f"topic {p.topic('shop')}"]["ownership"] == "external"


def test_show_diff_text_and_a_resource_without_artifacts(kafka_project, streamt_cli) -> None:
    from io import StringIO

    from streamt.cli import run

    p = kafka_project()
    out = StringIO()
    assert run(["show", "model", "lookup", "-p", str(p.path), "--diff"], stdout=out, stderr=StringIO()) == 0
    assert f"Declared vs live (default):\n  topic {p.topic('lookup')}: absent live (would be created)" in out.getvalue()
    unknown = streamt_cli("show", "model", "lookp", "-p", p.path, "--diff")
    assert unknown.error_codes == ["E102_MODEL_NOT_FOUND"]


def test_list_counts_one_item_in_the_singular(streamt_project) -> None:
    from io import StringIO

    from streamt.cli import run

    project = streamt_project({"stream_project.yml": {
        "project": {"name": "one"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "models": [{"name": "orders", "materialized": "topic"}],
    }})  # fmt: skip
    out = StringIO()
    assert run(["list", "models", "-p", str(project)], stdout=out, stderr=StringIO()) == 0
    assert out.getvalue().splitlines()[0] == "1 model"
