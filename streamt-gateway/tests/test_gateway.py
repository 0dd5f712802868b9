from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shared_material import SHARED
from streamt.project.loader import load_project
from streamt_gateway import plugin
from streamt_gateway.rule import gateway_rule, unsupported_operators, where_clause
from streamt_testing import compile_with

EXAMPLES = SHARED / "spec" / "examples"


def _rules(project: Any) -> dict[str, Any]:
    out = {}
    for model in project.models:
        for artifact in compile_with(plugin, project, model, project.env):
            out[artifact.name] = artifact
    return out


def test_ownership_gateway_example() -> None:
    rules = _rules(load_project(EXAMPLES / "ownership-gateway", process_env={}))
    assert sorted(rules) == ["customers_gold_view", "customers_legacy_alias"]
    gold = rules["customers_gold_view"]
    assert (gold.kind, gold.identity, gold.ownership) == ("gateway_rule", "crm.customers.gold", "managed")
    assert gold.spec == {
        "name": "customers_gold_view",
        "virtualTopic": "crm.customers.gold",
        "physicalTopic": "crm.customers.cdc.v3",
        "interceptors": [
            {"type": "filter", "config": {"where": "tier = 'GOLD'"}},
            {"type": "mask", "config": {"field": "email", "method": "hash", "forRoles": ["analytics"]}},
            {"type": "mask", "config": {"field": "phone", "method": "redact", "forRoles": []}},
        ],
    }
    legacy = rules["customers_legacy_alias"]
    assert legacy.ownership == "adopted"
    assert legacy.spec["virtualTopic"] == "crm.customers.v2" and legacy.spec["interceptors"] == []


def test_rule_spec_matches_the_tombstone_shape() -> None:
    # lifecycle.gateway_rule_removals[].prior_artifact is copied from the manifest as is.
    assert set(gateway_rule("n", "v", "p")) == {"name", "virtualTopic", "physicalTopic", "interceptors"}


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT * FROM {{ source('x') }}\nWHERE  a = 1\n  AND b <> 'z'", "a = 1 AND b <> 'z'"),
        ("SELECT * FROM t WHERE (a = 1) ORDER BY a", "(a = 1)"),
        ("SELECT * FROM (SELECT * FROM t WHERE a = 1) s", None),
    ],
)
def test_where_clause(sql: str, expected: str | None) -> None:
    assert where_clause(sql) == expected


def test_unsupported_operators() -> None:
    assert unsupported_operators("a = 1 AND b REGEXP 'x' AND c >= 2") == []
    assert unsupported_operators("a IN (1, 2) OR b LIKE 'x%' OR c BETWEEN 1 AND 2") == ["IN", "OR", "LIKE", "BETWEEN"]
    assert unsupported_operators("name = 'OR'") == []


def _project(streamt_project: Callable[..., Path], models: list[dict[str, Any]]) -> Any:
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "k:9092"}, "conduktor": {"gateway": {"admin_url": "u"}}},
                "sources": [{"name": "a", "topic": "ta"}, {"name": "b", "topic": "tb"}],
                "models": models,
            }
        }
    )
    return load_project(root, process_env={})


def test_validation_reports_filters_and_upstream_count(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project,
        [
            {
                "name": "v1",
                "sql": "SELECT * FROM {{ source('a') }} WHERE x IS NOT NULL",
                "gateway": {"virtual_topic": {}},
            },
            {
                "name": "v2",
                "materialized": "virtual_topic",
                "sql": "SELECT * FROM {{ source('a') }} JOIN {{ source('b') }} ON a.k = b.k",
            },
        ],
    )
    codes = sorted((d.code.code, d.message.split("'")[1]) for d in plugin.streamt_validate(project=project, env=""))
    assert codes == [("E501_PARSE_ERROR", "v2"), ("W201_SQL_PARSE_WARNING", "v1")]


def test_alias_over_an_alias_targets_the_physical_topic(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project,
        [
            {"name": "first", "materialized": "virtual_topic", "from": [{"source": "a"}]},
            {"name": "second", "materialized": "virtual_topic", "from": [{"ref": "first"}], "topic": {"name": "s.v1"}},
        ],
    )
    rule = _rules(project)["second"]
    assert (rule.spec["virtualTopic"], rule.spec["physicalTopic"]) == ("s.v1", "ta")
