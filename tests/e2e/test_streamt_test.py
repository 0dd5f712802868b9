"""`streamt test`: selection, ordering, schema tests offline, severity, actions, coverage and bad input.

Schema tests here contact nothing (no registry subject is declared); sample tests against the real
broker and registry are in ``test_streamt_test_sample.py``.
"""

from __future__ import annotations

import io
from typing import Any

from streamt.cli import run as cli_run
from streamt_testing import run_cli

COLUMNS = [
    {"name": "order_id", "type": "STRING", "required": True},
    {"name": "amount", "type": "DOUBLE"},
    {"name": "email", "type": "STRING", "classification": "sensitive"},
]


def project(tests: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "stream_project.yml": {
            "project": {"name": "shop"},
            # A closed port: schema tests must never need the broker.
            "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:1"}},
            "sources": [{"name": "orders_raw", "topic": "orders.raw", "columns": COLUMNS}],
            "models": [
                {
                    "name": "orders_clean",
                    "materialized": "topic",
                    "sql": "SELECT order_id, amount FROM {{ source('orders_raw') }}",
                    "columns": [{"name": "order_id", "type": "STRING", "required": True}, {"name": "amount"}],
                },
                {"name": "untested", "materialized": "topic", "sql": "SELECT * FROM {{ ref('orders_clean') }}"},
            ],
            "tests": tests,
            **extra,
        }
    }


GOOD = {
    "name": "orders_schema",
    "model": "orders_raw",
    "type": "schema",
    "assertions": [
        {"not_null": {"columns": ["order_id"]}},
        {"accepted_types": {"types": {"order_id": "string", "amount": "double"}}},
    ],
}
BAD = {
    "name": "orders_schema_bad",
    "model": "orders_raw",
    "type": "schema",
    "assertions": [
        {"not_null": {"columns": ["amount", "missing"]}},
        {"accepted_types": {"amount": "long"}},  # the flat form of the upstream fixtures
        {"range": {"column": "amount", "min": 0}},
    ],
}


def run(streamt_project, tests: list[dict[str, Any]], *args: str, **extra: Any):
    return run_cli("test", "--project-dir", streamt_project(project(tests, **extra)), *args)


def by_name(outcome) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in outcome.data["tests"]}


def test_a_passing_schema_test_exits_0_with_exact_counts(streamt_project) -> None:
    outcome = run(streamt_project, [GOOD])
    assert outcome.exit_code == 0 and outcome.ok, outcome.envelope
    test = by_name(outcome)["orders_schema"]
    assert test["status"] == "passed"
    assert [(a["assertion"], a["status"], a["checked"], a["failed"]) for a in test["assertions"]] == [
        ("not_null", "passed", 1, 0),
        ("accepted_types", "passed", 2, 0),
    ]
    assert outcome.data["summary"] == {"passed": 1, "failed": 0, "deployed": 0, "warnings": 0, "skipped": 0}


def test_a_failing_schema_test_exits_1_and_names_each_problem(streamt_project) -> None:
    outcome = run(streamt_project, [GOOD, BAD])
    assert outcome.exit_code == 1 and outcome.envelope["status"] == "error"
    test = by_name(outcome)["orders_schema_bad"]
    assert test["status"] == "failed"
    not_null, types, range_ = test["assertions"]
    assert (not_null["failed"], not_null["checked"]) == (2, 2)
    assert not_null["examples"] == [
        {"column": "amount", "problem": "declared without required: true"},
        {"column": "missing", "problem": "not a declared column"},
    ]
    assert (types["status"], types["failed"]) == ("failed", 1)
    assert types["examples"] == [{"column": "amount", "problem": "declared DOUBLE, accepted long"}]
    assert range_["status"] == "skipped" and "not evaluated by schema tests" in range_["reason"]


def test_the_text_has_the_reference_sections_marks_and_results_line(streamt_project) -> None:
    stdout = io.StringIO()
    exit_code = cli_run(["test", "--project-dir", str(streamt_project(project([GOOD, BAD])))], stdout, io.StringIO())
    assert exit_code == 1
    lines = stdout.getvalue().splitlines()
    assert lines[:3] == ["Running tests...", "", "Schema Tests:"]
    assert "  ✓ orders_schema (2 assertions)" in lines
    assert "  ✗ orders_schema_bad (3 assertions)" in lines
    assert lines[-1] == "Results: 1 passed, 1 failed, 0 deployed"


def test_severity_warning_turns_a_failure_into_a_warning_and_actions_are_reported(streamt_project) -> None:
    warned = {**BAD, "on_failure": {"severity": "warning", "actions": [{"alert": {"type": "slack"}}, {"dlq": {}}]}}
    outcome = run(streamt_project, [warned])
    assert outcome.exit_code == 0 and outcome.ok, outcome.envelope
    test = by_name(outcome)["orders_schema_bad"]
    assert test["status"] == "warning"
    assert test["actions"] == [
        {"action": "alert", "executed": False, "reason": "not executed by streamt test"},
        {"action": "dlq", "executed": False, "reason": "not executed by streamt test"},
    ]
    assert outcome.data["summary"]["warnings"] == 1


def test_block_deploy_fails_the_run_even_for_a_warning(streamt_project) -> None:
    blocking = {**BAD, "on_failure": {"severity": "warning", "actions": [{"block_deploy": True}]}}
    outcome = run(streamt_project, [blocking])
    assert outcome.exit_code == 1
    assert by_name(outcome)["orders_schema_bad"]["actions"] == [
        {"action": "block_deploy", "executed": True, "effect": "streamt test exits 1"}
    ]


def test_model_and_type_select_and_the_order_is_schema_sample_continuous(streamt_project) -> None:
    sample = {"name": "a_sample", "model": "orders_clean", "type": "sample", "assertions": [{"bogus_kind": {}}]}
    on_model = {
        **GOOD,
        "name": "model_schema",
        "model": "orders_clean",
        "assertions": [{"not_null": {"columns": ["order_id"]}}],
    }
    outcome = run(streamt_project, [sample, GOOD, on_model])
    assert [t["name"] for t in outcome.data["tests"]] == ["orders_schema", "model_schema", "a_sample"]
    outcome = run(streamt_project, [sample, GOOD, on_model], "--model", "orders_clean", "--type", "schema")
    assert [t["name"] for t in outcome.data["tests"]] == ["model_schema"]
    assert outcome.data["selection"] == {"model": "orders_clean", "type": "schema"}


def test_an_unknown_assertion_kind_is_skipped_with_the_reason_never_a_traceback(streamt_project) -> None:
    weird = {"name": "weird", "model": "orders_clean", "type": "sample", "assertions": [{"bogus_kind": {"x": 1}}]}
    outcome = run(streamt_project, [weird])
    assert outcome.exit_code == 0, outcome.envelope
    test = by_name(outcome)["weird"]
    assert test["status"] == "skipped"
    assert test["assertions"][0]["reason"] == "unknown assertion kind 'bogus_kind'"


def test_an_unknown_model_is_e102_and_a_test_on_a_missing_model_is_e107(streamt_project) -> None:
    outcome = run(streamt_project, [GOOD], "--model", "nope")
    assert outcome.error_codes == ["E102_MODEL_NOT_FOUND"]
    outcome = run(streamt_project, [{**GOOD, "model": "nope"}])
    assert outcome.error_codes == ["E107_TEST_MODEL_NOT_FOUND"]


def test_an_unreachable_broker_is_a_structured_error_per_sample_test(streamt_project, monkeypatch) -> None:
    # A refused connection is known at once: the default 8 s of bootstrap retries adds nothing here.
    monkeypatch.setenv("STREAMT_KAFKA_CONNECT_TIMEOUT", "0.3")
    sample = {
        "name": "s1",
        "model": "orders_clean",
        "type": "sample",
        "assertions": [{"not_null": {"columns": ["order_id"]}}],
    }
    outcome = run(streamt_project, [sample])
    assert outcome.exit_code == 1
    assert outcome.error_codes == ["E406_CONNECTION_REFUSED"]
    assert by_name(outcome)["s1"]["status"] == "error"


def test_deploy_warns_and_runs_locally(streamt_project) -> None:
    outcome = run(streamt_project, [GOOD], "--deploy")
    assert outcome.ok and outcome.warning_codes == ["W123_TEST_DEPLOY_RESERVED"]
    assert outcome.data["deploy_requested"] is True and outcome.data["tests"][0]["status"] == "passed"


def test_coverage_lists_models_and_sources_with_their_test_types(streamt_project) -> None:
    outcome = run(
        streamt_project, [GOOD, {**GOOD, "name": "m", "model": "orders_clean", "type": "sample"}], "--coverage"
    )
    assert outcome.ok, outcome.envelope
    report = outcome.data["coverage"]
    assert report["resources"] == [
        {"name": "orders_clean", "kind": "model", "tests": ["m"], "types": ["sample"]},
        {"name": "untested", "kind": "model", "tests": [], "types": []},
        {"name": "orders_raw", "kind": "source", "tests": ["orders_schema"], "types": ["schema"]},
    ]
    assert (report["models_tested"], report["models_total"], report["model_coverage_percent"]) == (1, 2, 50.0)


def test_no_tests_is_an_empty_successful_run(streamt_project) -> None:
    outcome = run(streamt_project, [])
    assert outcome.ok and outcome.data["tests"] == []
    assert outcome.data["summary"]["passed"] == 0


def test_without_the_kafka_plugin_schema_tests_name_the_extra(streamt_project, streamt_cli) -> None:
    path = streamt_project(project([GOOD]))
    outcome = streamt_cli("test", "--project-dir", path, env={"STREAMT_DISABLED_PLUGINS": "kafka"})
    assert outcome.error_codes == ["E903_PLUGIN_REQUIRED"]
    assert "pip install 'streamt[kafka]'" in outcome.envelope["errors"][0]["suggestion"]
