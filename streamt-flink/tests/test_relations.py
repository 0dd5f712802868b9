"""Relations are derived once per project and each model's SQL is tokenized once per compile."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest
from streamt.compile import compile_project
from streamt.project.loader import load_project
from streamt_flink import query, relations
from streamt_flink.relations import model_relation


def _chain(streamt_project: Callable[..., Path], length: int, column_type: str = "BIGINT") -> Any:
    models = [{"name": "m0", "materialized": "flink", "sql": 'SELECT k, v FROM {{ source("events") }}'}]
    models += [
        {"name": f"m{i}", "materialized": "flink", "sql": f'SELECT k, v FROM {{{{ ref("m{i - 1}") }}}} WHERE v > {i}'}
        for i in range(1, length)
    ]
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "localhost:9092"},
                    "flink": {"clusters": {"local": {"rest_url": "http://f:8081"}}},
                },
                "sources": [
                    {
                        "name": "events",
                        "topic": "app.events.v1",
                        "columns": [{"name": "k", "type": "STRING"}, {"name": "v", "type": column_type}],
                    }
                ],
                "models": models,
            }
        }
    )
    return load_project(root, process_env={})


def test_each_relation_is_derived_and_each_query_tokenized_once(
    streamt_project: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _chain(streamt_project, 30)
    derived: list[str] = []
    tokenized: list[str] = []
    derive, tokens = relations._derive, query._tokens
    monkeypatch.setattr(relations, "_derive", lambda p, m, *rest: derived.append(m.name) or derive(p, m, *rest))
    monkeypatch.setattr(query, "_tokens", lambda sql: tokenized.append(sql) or tokens(sql))
    query.analyze.cache_clear()
    compile_project(project)
    assert sorted(derived) == sorted(f"m{i}" for i in range(30))
    assert len(tokenized) == 30  # the job's query; the relation reads the same text


def test_relations_do_not_leak_across_projects(streamt_project: Callable[..., Path]) -> None:
    first = _chain(streamt_project, 3, "BIGINT")
    second = _chain(streamt_project, 3, "DOUBLE")
    for project, wanted in ((first, "BIGINT"), (second, "DOUBLE"), (first, "BIGINT")):
        types = {c.name: c.type for c in model_relation(project, project.model("m2")).columns}
        assert types == {"k": "STRING", "v": wanted}
    key = id(second)
    del second
    gc.collect()
    assert key not in relations._BY_PROJECT  # collected with its project


def test_a_model_outside_the_project_is_derived_not_kept(streamt_project: Callable[..., Path]) -> None:
    project = _chain(streamt_project, 2)
    kept = model_relation(project, project.model("m1"))
    changed = attrs.evolve(project.model("m1"), sql='SELECT k FROM {{ ref("m0") }}')
    assert [c.name for c in model_relation(project, changed).columns] == ["k"]
    assert model_relation(project, project.model("m1")) is kept


def test_an_unresolved_dependency_falls_back_to_the_logical_text(streamt_project: Callable[..., Path]) -> None:
    project = _chain(streamt_project, 1)
    orphan = attrs.evolve(project.model("m0"), sql='SELECT k, v AS w FROM {{ ref("missing") }}')
    # Validation refuses the unknown name before compile; the relation still names the columns it can.
    assert [c.name for c in model_relation(project, orphan).columns] == ["k", "w"]
