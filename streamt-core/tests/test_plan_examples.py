"""`plan --offline` over the example projects, `--out`, and plain (online) plan being honest about E904."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shared_material import SHARED
from streamt.errors import Codes
from streamt.plan import read_plan_file
from streamt_testing import CliOutcome, run_cli

EXAMPLES = SHARED / "spec" / "examples"


def plan(name: str, *extra: str | Path) -> CliOutcome:
    outcome = run_cli("plan", "--offline", "--project-dir", EXAMPLES / name, *extra)
    assert outcome.ok, outcome.envelope
    return outcome


def actions(outcome: CliOutcome) -> list[tuple[str, str, str]]:
    return [(a["action"], a["kind"], a["identity"]) for a in outcome.data["actions"]]


def test_minimal_topic_plans_two_creates_and_an_external_noop() -> None:
    outcome = plan("minimal-topic")
    assert actions(outcome) == [
        ("noop", "topic", "web.clicks.raw.v1"),
        ("create", "topic", "web.clicks.retry.v1"),
        ("create", "topic", "web.page-titles.v1"),
    ]
    assert outcome.data["counts"] == {"create": 2, "update": 0, "delete": 0, "noop": 1, "adopt": 0}
    assert outcome.data["is_apply_blocked"] is False and outcome.data["can_authorize_apply"] is False
    assert outcome.data["offline"] is True and outcome.data["state"] is None


def test_kafka_streams_plans_two_topic_creates_and_one_runner_create_after_its_topics() -> None:
    found = actions(plan("kafka-streams"))
    assert sorted(found) == [
        ("create", "kafka_streams_job", "eligible_orders"),
        ("create", "topic", "orders.eligible.orders.v1"),
        ("create", "topic", "orders.raw.orders.v1"),
    ]
    assert found[-1][1] == "kafka_streams_job"


def test_payments_jobs_come_after_the_topics_they_write() -> None:
    found = actions(plan("payments-pipeline"))
    position = {identity: i for i, (_, _, identity) in enumerate(found)}
    assert position["payments.clean.v1"] < position["payments_clean"]
    assert position["payments.merchant-totals.v1"] < position["merchant_totals_1m"]
    assert ("noop", "topic", "payments.card-events.v1") in found
    created = {identity for a, _, identity in found if a == "create"}
    expected = {"payments.clean.v1", "payments.merchant-totals.v1", "payments_clean", "merchant_totals_1m"}
    assert expected | {"card-payments.default.payments_to_warehouse", "test_merchant_totals_monitor"} <= created


def test_ownership_gateway_tombstones_refuse_an_offline_plan() -> None:
    # Its two lifecycle tombstones need live evidence and a reviewed online plan (dsl.md section 15):
    # an offline plan must not print them as "2 to delete".
    outcome = run_cli("plan", "--offline", "--project-dir", EXAMPLES / "ownership-gateway")
    [error] = outcome.envelope["errors"]
    assert outcome.exit_code != 0 and error["code"] == "E418_REVIEWED_PLAN_REQUIRED"
    assert "gateway rule 'customers_emea_view'" in error["message"]
    assert "connector 'customers_to_legacy_dw'" in error["message"]


def test_out_writes_an_offline_plan_file_that_cannot_authorize_apply(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    outcome = plan("payments-pipeline", "--out", out)
    assert outcome.data["plan_file"] == str(out)
    reviewed = read_plan_file(out)
    assert reviewed.offline and reviewed.document["format_version"] == 5 and reviewed.document["state"] is None
    assert [a["identity"] for a in reviewed.actions] == [a["identity"] for a in outcome.data["actions"]]
    again = tmp_path / "again.json"
    plan("payments-pipeline", "--out", again)
    assert again.read_bytes() == out.read_bytes()


def test_no_secret_reaches_plan_compile_or_build_output(tmp_path: Path, streamt_project: Any) -> None:
    sentinel = "s3cr3t-SENTINEL-value"
    runtime = {
        "kafka": {"bootstrap_servers": "k:9092", "sasl_username": "u", "sasl_password": sentinel},
        "schema_registry": {"url": "http://sr:8081", "password": sentinel},
    }
    files = {
        "stream_project.yml": {
            "project": {"name": "p"},
            "runtime": runtime,
            "sources": [{"name": "s", "topic": "s.v1", "ownership": {"mode": "managed"}, "schema": {}, "columns": []}],
            "models": [{"name": "m", "topic": {"name": "m.v1"}}],
        }
    }
    project = streamt_project(files)
    outputs = [
        run_cli("plan", "--offline", "--project-dir", project, "--out", tmp_path / "plan.json"),
        run_cli("compile", "--project-dir", project, "--output-dir", tmp_path / "gen"),
        run_cli("build", "--project-dir", project, "--output-dir", tmp_path / "build"),
    ]
    assert all(o.ok for o in outputs), [o.envelope for o in outputs]
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file() and project not in p.parents]
    assert len(written) >= 7
    for text in [*(o.stdout + o.stderr for o in outputs), *written]:
        assert sentinel not in text


def test_online_plan_fails_closed_when_a_live_reader_cannot_read(tmp_path: Path, monkeypatch: Any) -> None:
    # Every kind has a live reader now; one that cannot reach its service fails the plan (E406), never "absent".
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    outcome = run_cli("plan", "--project-dir", EXAMPLES / "kafka-streams")
    assert outcome.exit_code == 1 and outcome.error_codes == [Codes.E406_CONNECTION_REFUSED.code]
    assert "Docker Engine" in outcome.envelope["errors"][0]["message"]
