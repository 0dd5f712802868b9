"""Every example project of the spec compiles (``compile --dry-run``) to the artifacts its README lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from shared_material import SHARED
from streamt_testing import CliOutcome, run_cli

EXAMPLES = SHARED / "spec" / "examples"


def compile_example(name: str, *extra: str) -> CliOutcome:
    outcome = run_cli("compile", "--dry-run", "--project-dir", EXAMPLES / name, *extra)
    assert outcome.ok, outcome.envelope
    return outcome


def artifacts(outcome: CliOutcome) -> dict[str, list[tuple[str, str]]]:
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for item in outcome.data["artifacts"]:
        by_kind.setdefault(item["kind"], []).append((item["identity"], item["ownership"]))
    return {kind: sorted(items) for kind, items in by_kind.items()}


def test_minimal_topic_compiles_two_managed_topics_and_declares_the_external_one() -> None:
    outcome = compile_example("minimal-topic")
    assert artifacts(outcome) == {
        "topic": [
            ("web.clicks.raw.v1", "external"),
            ("web.clicks.retry.v1", "managed"),
            ("web.page-titles.v1", "managed"),
        ]
    }
    assert outcome.data["files"] == [
        "manifest.json",
        "topics/web.clicks.raw.v1.json",
        "topics/web.clicks.retry.v1.json",
        "topics/web.page-titles.v1.json",
    ]
    assert outcome.data["output_dir"] is None and outcome.data["dry_run"] is True


def test_payments_pipeline_compiles_topics_jobs_connector_and_schema() -> None:
    found = artifacts(compile_example("payments-pipeline"))
    managed = {kind: sorted(i for i, mode in items if mode == "managed") for kind, items in found.items()}
    # The Flink plugin may add its own internal topics (the continuous-test failures topic).
    assert {"payments.clean.v1", "payments.merchant-totals.v1"} <= set(managed["topic"])
    assert managed["flink_job"] == ["merchant_totals_1m", "payments_clean"]
    assert managed["test_job"] == ["test_merchant_totals_monitor"]
    assert managed["connector"] == ["card-payments.default.payments_to_warehouse"]  # scoped: many projects, one Connect
    assert [i for i, _ in found["schema"]] == ["payments.card-events.v1-value"]


def test_ownership_gateway_keeps_external_and_adopted_modes_on_every_artifact() -> None:
    found = artifacts(compile_example("ownership-gateway"))
    assert found["topic"] == [("crm.consent-events.v1", "adopted"), ("crm.customers.cdc.v3", "external")]
    assert found["schema"] == [("crm.customers.cdc.v3-value", "external")]
    assert found["connector"] == [("consents_to_crm_db", "adopted")]
    assert sorted(mode for _, mode in found["gateway_rule"]) == ["adopted", "managed"]
    assert found["connector_removal"] == [("customers_to_legacy_dw", "managed")]
    assert found["gateway_rule_removal"] == [("customers_emea_view", "managed")]


def test_kafka_streams_compiles_two_topics_and_one_runner_job_and_no_flink_job() -> None:
    found = artifacts(compile_example("kafka-streams"))
    assert found["topic"] == [("orders.eligible.orders.v1", "managed"), ("orders.raw.orders.v1", "managed")]
    assert found["kafka_streams_job"] == [("eligible_orders", "managed")]
    assert "flink_job" not in found


def test_multi_env_dev_compiles_the_dev_topics_and_jobs() -> None:
    found = artifacts(compile_example("multi-env", "--env", "dev"))
    assert found["topic"] == [
        ("dev.orders.raw.v1", "external"),
        ("orders.per-region-5m.v1", "managed"),
        ("orders.valid.v1", "managed"),
    ]
    assert [i for i, _ in found["flink_job"]] == ["orders_per_region_5m", "orders_valid"]


def test_topic_specs_carry_partitions_replication_and_configs_after_defaults(tmp_path: Path) -> None:
    outcome = run_cli("compile", "--project-dir", EXAMPLES / "minimal-topic", "--output-dir", tmp_path / "gen")
    assert outcome.ok, outcome.envelope
    import json

    def spec(name: str) -> Any:
        return json.loads((tmp_path / "gen" / "topics" / f"{name}.json").read_text())

    assert spec("web.clicks.retry.v1") == {
        "config": {"retention.ms": "259200000"},
        "name": "web.clicks.retry.v1",
        "partitions": 3,
        "replication_factor": 1,
    }
    assert spec("web.page-titles.v1")["partitions"] == 1
    assert spec("web.page-titles.v1")["config"] == {"cleanup.policy": "compact"}
    assert spec("web.clicks.raw.v1") == {"name": "web.clicks.raw.v1"}
    assert outcome.data["manifest"].endswith("gen/manifest.json")


@pytest.mark.parametrize("example", ["minimal-topic", "payments-pipeline"])
def test_text_output_lists_the_generated_tree(example: str, tmp_path: Path) -> None:
    import io

    from streamt.cli import run

    out = io.StringIO()
    argv = ["compile", "--project-dir", str(EXAMPLES / example), "--output-dir", str(tmp_path / "g")]
    code = run(argv, out, io.StringIO())
    text = out.getvalue()
    assert code == 0
    assert text.startswith("Compiling project...\n\nGenerated artifacts:\n")
    assert "\n  topics/\n    " in text
    assert text.rstrip().endswith(f"Manifest written to: {tmp_path / 'g'}/manifest.json")


def test_a_compile_error_leaves_the_previous_output_untouched(tmp_path: Path, streamt_project: Any) -> None:
    files = {
        "stream_project.yml": {
            "project": {"name": "p"},
            "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
            "models": [{"name": "a", "topic": {"name": "same.v1"}}, {"name": "b", "topic": {"name": "same.v1"}}],
        }
    }
    good = run_cli("compile", "--project-dir", EXAMPLES / "minimal-topic", "--output-dir", tmp_path / "gen")
    assert good.ok
    before = sorted(p.name for p in (tmp_path / "gen" / "topics").iterdir())
    bad = run_cli("compile", "--project-dir", streamt_project(files), "--output-dir", tmp_path / "gen")
    assert bad.exit_code == 1 and bad.error_codes
    assert sorted(p.name for p in (tmp_path / "gen" / "topics").iterdir()) == before
