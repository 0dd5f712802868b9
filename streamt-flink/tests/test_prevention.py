"""Poison-record prevention: parse errors skipped, the sink's NOT NULL enforcer, a bounded restart
strategy, and W124 for an upsert key that can be NULL upstream."""

from __future__ import annotations

import json
from typing import Any

import pytest
from streamt.project.loader import load_project
from streamt_flink.job import compile_model

COUNT = 'SELECT customer_id, COUNT(*) AS n FROM {{ source("orders") }} GROUP BY customer_id'


def _project(flink: dict[str, Any] | None = None, sql: str = COUNT, source: dict[str, Any] | None = None) -> dict:
    return {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "shop"},
            "runtime": {
                "kafka": {"bootstrap_servers": "localhost:9092"},
                "flink": {"default": "local", "clusters": {"local": {"rest_url": "http://f"}}},
            },
            "sources": [
                {
                    "name": "orders",
                    "topic": "orders.v1",
                    "columns": [{"name": "customer_id", "type": "STRING"}, {"name": "amount", "type": "INT"}],
                    **(source or {}),
                }
            ],
            "models": [
                {
                    "name": "orders_per_customer",
                    "materialized": "flink",
                    "sql": sql,
                    "advanced": {"flink": {"state_ttl_ms": 3600000, **(flink or {})}},
                }
            ],
        }
    }


def _spec(streamt_project: Any, files: dict) -> dict[str, Any]:
    project = load_project(str(streamt_project(files)))
    return compile_model(project, project.model("orders_per_customer")).spec


def test_declared_prevention_compiles_to_flinks_own_options(streamt_project) -> None:
    flink = {"sink": {"not_null_enforcer": "drop"}, "restart_strategy": {"type": "fixed-delay", "attempts": 3}}
    spec = _spec(streamt_project, _project(flink, source={"format": {"ignore_parse_errors": True}}))
    assert spec["settings"]["table.exec.sink.not-null-enforcer"] == "DROP"
    assert spec["settings"]["restart-strategy.type"] == "fixed-delay"
    assert spec["settings"]["restart-strategy.fixed-delay.attempts"] == "3"
    assert "restart-strategy.fixed-delay.delay" not in spec["settings"]
    source_ddl = next(s for s in spec["statements"] if "`orders_v1`" in s and s.startswith("CREATE"))
    assert "'json.ignore-parse-errors' = 'true'" in source_ddl


def test_nothing_declared_keeps_flinks_defaults(streamt_project) -> None:
    spec = _spec(streamt_project, _project())
    text = "\n".join(spec["statements"])
    assert "restart-strategy" not in text and "not-null-enforcer" not in text and "ignore-parse-errors" not in text


@pytest.mark.parametrize(
    "flink",
    [
        {"sink": {"not_null_enforcer": "ignore"}},
        {"restart_strategy": {"type": "exponential-delay", "attempts": 3}},
        {"restart_strategy": {"type": "fixed-delay"}},
        {"restart_strategy": {"type": "fixed-delay", "attempts": 0}},
    ],
)
def test_values_flink_does_not_take_are_refused(streamt_project, streamt_cli, flink) -> None:
    refused = streamt_cli("validate", "-p", streamt_project(_project(flink)))
    assert refused.error_codes == ["E501_PARSE_ERROR"], refused.envelope


def _w124(streamt_project: Any, streamt_cli: Any, files: dict) -> list[dict[str, Any]]:
    checked = streamt_cli("validate", "-p", streamt_project(files))
    assert checked.ok, checked.envelope
    return [w for w in checked.envelope["warnings"] if w["code"] == "W124_UPSERT_KEY_NULLABLE"]


def test_a_nullable_upsert_key_warns_with_the_fix(streamt_project, streamt_cli) -> None:
    (warning,) = _w124(streamt_project, streamt_cli, _project())
    assert "'customer_id'" in warning["message"] and "source 'orders'" in warning["message"]
    assert "WHERE customer_id IS NOT NULL" in json.dumps(warning) and "not_null_enforcer: drop" in json.dumps(warning)


@pytest.mark.parametrize(
    "files",
    [
        _project(sql=COUNT.replace("GROUP BY", "WHERE customer_id IS NOT NULL GROUP BY")),
        _project({"sink": {"not_null_enforcer": "drop"}}),
        {
            "stream_project.yml": {
                **_project()["stream_project.yml"],
                "sources": [
                    {
                        "name": "orders",
                        "topic": "orders.v1",
                        "columns": [{"name": "customer_id", "type": "STRING", "required": True}],
                    }
                ],
            }
        },
        _project(sql='SELECT customer_id FROM {{ source("orders") }}'),  # append: no primary key
    ],
    ids=["filtered", "dropped", "required", "append"],
)
def test_a_key_that_cannot_be_null_or_is_dropped_does_not_warn(streamt_project, streamt_cli, files) -> None:
    assert _w124(streamt_project, streamt_cli, files) == []
