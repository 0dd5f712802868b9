"""validate refuses a compacted output topic without a key: Kafka would refuse its keyless records."""

from __future__ import annotations

from typing import Any

import pytest


def _project(model: dict[str, Any], defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    project: dict[str, Any] = {
        "project": {"name": "compaction"},
        "runtime": {
            "kafka": {"bootstrap_servers": "127.0.0.1:1"},
            "flink": {"default": "local", "clusters": {"local": {"rest_url": "http://127.0.0.1:1"}}},
        },
        "sources": [{"name": "orders", "topic": "orders", "columns": [{"name": "id", "type": "STRING"}]}],
        "models": [
            {"name": "latest", "materialized": "flink", "sql": "SELECT id FROM {{ source('orders') }}", **model}
        ],
    }
    if defaults is not None:
        project["defaults"] = {"topic": {"config": defaults}}
    return {"stream_project.yml": project}


@pytest.mark.parametrize(
    ("model", "defaults"),
    [
        ({"advanced": {"topic": {"config": {"cleanup.policy": "compact"}}}}, None),
        ({"advanced": {"topic": {"config": {"cleanup.policy": "compact,delete"}}}}, None),
        ({}, {"cleanup.policy": "compact"}),
    ],
)
def test_keyless_compaction_is_e436(streamt_project, streamt_cli, model, defaults) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(_project(model, defaults)))
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E436_DECLARATION_NOT_APPLICABLE" and "declares no key" in error["message"]
    assert error["suggestion"] == "Declare key: <column> (or primary_key) on the model, or use cleanup.policy: delete."


@pytest.mark.parametrize(
    "model",
    [
        {"key": "id", "advanced": {"topic": {"config": {"cleanup.policy": "compact"}}}},
        {"advanced": {"topic": {"config": {"cleanup.policy": "delete"}}}},
    ],
)
def test_a_keyed_or_deleting_topic_is_fine(streamt_project, streamt_cli, model) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(_project(model)))
    assert "E436_DECLARATION_NOT_APPLICABLE" not in outcome.error_codes, outcome.envelope


def test_a_managed_topic_without_sql_is_not_judged(streamt_project, streamt_cli) -> None:
    # Someone else produces to it: streamt cannot know whether its records carry keys.
    files = _project({})
    files["stream_project.yml"]["models"] = [
        {"name": "profiles", "advanced": {"topic": {"config": {"cleanup.policy": "compact"}}}}
    ]
    assert "E436_DECLARATION_NOT_APPLICABLE" not in streamt_cli("validate", "-p", streamt_project(files)).error_codes
