"""validate says what plan would block or Gateway would not enforce about a virtual topic's masks."""

from __future__ import annotations

from typing import Any

import pytest


def _project(policies: list[dict[str, Any]], columns: list[str] | None = ("id", "email")) -> dict[str, Any]:
    source: dict[str, Any] = {"name": "customers", "topic": "customers"}
    if columns:
        source["columns"] = [{"name": c, "type": "STRING"} for c in columns]
    return {
        "stream_project.yml": {
            "project": {"name": "masks"},
            "runtime": {
                "kafka": {"bootstrap_servers": "127.0.0.1:1"},
                "conduktor": {"gateway": {"admin_url": "http://127.0.0.1:1"}},
            },
            "sources": [source],
            "models": [
                {
                    "name": "gold",
                    "materialized": "virtual_topic",
                    "sql": "SELECT * FROM {{ source('customers') }}",
                    "security": {"policies": [{"mask": p} for p in policies]},
                }
            ],
        }
    }


def test_a_mask_method_without_a_gateway_rule_is_w131(streamt_project, streamt_cli, streamt_cli_text) -> None:
    root = streamt_project(_project([{"column": "email", "method": "hash"}]))
    outcome = streamt_cli("validate", "-p", root)
    assert outcome.ok and outcome.warning_codes == ["W131_GATEWAY_MASK_NOT_APPLICABLE"], outcome.envelope
    (warning,) = outcome.envelope["warnings"]
    assert "masks 'email' with method 'hash', which no Gateway masking rule implements" in warning["message"]
    assert warning["suggestion"] == "Use method: redact, or materialize the model as flink to mask it in SQL."
    assert streamt_cli("validate", "-p", root, "--strict").error_codes == ["W131_GATEWAY_MASK_NOT_APPLICABLE"]
    assert "warning W131_GATEWAY_MASK_NOT_APPLICABLE: " in streamt_cli_text("validate", "-p", root).stderr


def test_a_mask_on_a_column_the_upstream_does_not_produce_is_e436(streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(_project([{"column": "mail", "method": "redact"}])))
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E436_DECLARATION_NOT_APPLICABLE"
    assert error["message"] == "Virtual topic 'gold' masks column 'mail', which its upstream does not produce"
    assert error["suggestion"] == "Mask one of the upstream's columns (email, id), or drop the policy."


@pytest.mark.parametrize(
    ("policies", "columns"),
    [([{"column": "email", "method": "redact"}], ("id", "email")), ([{"column": "any", "method": "redact"}], None)],
)
def test_a_supported_mask_or_an_undeclared_upstream_is_left_alone(streamt_project, streamt_cli, policies, columns):
    outcome = streamt_cli("validate", "-p", streamt_project(_project(policies, columns)))
    assert outcome.ok and "W131_GATEWAY_MASK_NOT_APPLICABLE" not in outcome.warning_codes, outcome.envelope
