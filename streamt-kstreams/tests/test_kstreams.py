from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shared_material import SHARED
from streamt.errors import StreamtError
from streamt.project.loader import load_project
from streamt_kstreams import plugin
from streamt_kstreams.plan import compile_plan
from streamt_kstreams.subset import Predicate, Projection, SubsetError, parse
from streamt_testing import compile_with

EXAMPLES = SHARED / "spec" / "examples"


def test_kafka_streams_example_compiles_one_runner_plan() -> None:
    project = load_project(EXAMPLES / "kafka-streams", process_env={})
    artifacts = [a for m in project.models for a in compile_with(plugin, project, m, "")]
    assert [(a.kind, a.identity) for a in artifacts] == [("kafka_streams_job", "eligible_orders")]
    spec = artifacts[0].spec
    assert spec["plan_version"] == 1
    assert spec["input"] == {"kind": "model", "name": "raw_orders", "topic": "orders.raw.orders.v1"}
    assert spec["output_topic"] == "orders.eligible.orders.v1"
    assert spec["projections"] == [
        {"column": "id", "name": "id", "type": "STRING"},
        {"column": "amount", "name": "amount", "type": "BIGINT"},
    ]
    assert spec["predicates"] == [
        {"column": "amount", "op": ">=", "type": "BIGINT", "value": 100},
        {"column": "paid", "op": "=", "type": "BOOLEAN", "value": True},
    ]
    assert spec["runtime"]["bootstrap_servers"] == "broker:19092"
    assert artifacts[0].depends_on == (("topic", "orders.raw.orders.v1"), ("topic", "orders.eligible.orders.v1"))


def test_subset_parses_aliases_and_null_checks() -> None:
    query = parse("SELECT a AS x, b y FROM {{ source('s') }} WHERE a IS NOT NULL AND b IS NULL AND c != 'it''s';")
    assert query.projections == (Projection("a", "x"), Projection("b", "y"))
    assert query.predicates == (Predicate("a", "IS NOT NULL"), Predicate("b", "IS NULL"), Predicate("c", "<>", "it's"))


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id, COUNT(*) FROM {{ ref('x') }} GROUP BY id",
        "SELECT * FROM {{ ref('x') }}",
        "SELECT a FROM {{ ref('x') }} WHERE a = 1 OR a = 2",
        "SELECT a FROM {{ ref('x') }} JOIN {{ ref('y') }} ON a = b",
        "SELECT UPPER(a) AS a FROM {{ ref('x') }}",
        "SELECT a FROM {{ ref('x') }} WHERE a LIKE 'x%'",
        "SELECT a FROM {{ ref('x') }} WHERE a = {{ env('X') }}",
        "SELECT a FROM {{ ref('x') }} ORDER BY a",
    ],
)
def test_everything_else_is_refused(sql: str) -> None:
    with pytest.raises(SubsetError):
        parse(sql)


def _project(streamt_project: Callable[..., Path], sql: str) -> Any:
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "k:9092"},
                    "kafka_streams": {"image": "sha256:" + "a" * 64, "docker_network": "n", "initial_offset": "latest"},
                },
                "models": [
                    {
                        "name": "raw",
                        "columns": [
                            {"name": "id", "type": "STRING"},
                            {"name": "n", "type": "BIGINT"},
                            {"name": "ts", "type": "TIMESTAMP(3)"},
                        ],
                    },
                    {"name": "out", "materialized": "topic", "executor": "kafka_streams", "sql": sql},
                ],
            }
        }
    )
    return load_project(root, process_env={})


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        ("SELECT id, missing FROM {{ ref('raw') }}", "column 'missing' is not declared"),
        ("SELECT ts FROM {{ ref('raw') }}", "has type TIMESTAMP(3)"),
        ("SELECT id FROM {{ ref('raw') }} WHERE n = 'x'", "compared with 'x'"),
        ("SELECT id FROM {{ ref('raw') }} WHERE id > 'a'", "supports only = and <>"),
        ("SELECT id, COUNT(*) FROM {{ ref('raw') }} GROUP BY id", "function 'COUNT'"),
    ],
)
def test_type_checks_report_e501(streamt_project: Callable[..., Path], sql: str, problem: str) -> None:
    project = _project(streamt_project, sql)
    [diagnostic] = plugin.streamt_validate(project=project, env="default")
    assert diagnostic.code.code == "E501_PARSE_ERROR" and problem in diagnostic.message
    with pytest.raises(StreamtError):
        compile_plan(project, project.model("out"))
