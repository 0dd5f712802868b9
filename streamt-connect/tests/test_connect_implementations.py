"""Connector implementations with known keys: Debezium's JDBC sink mapping and refusals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamt.errors import StreamtError
from streamt.project.loader import load_project
from streamt_connect import plugin
from streamt_connect.compiler import compile_sink
from streamt_connect.connector import connector_class, connector_config
from streamt_connect.implementations import DEBEZIUM_JDBC_SINK, ConfigProblem


def debezium(config: dict[str, Any], masks: list[tuple[str, str]] | None = None) -> dict[str, str]:
    return connector_config("db", "debezium-jdbc-sink", ["t"], config, masks or [])


def test_the_short_name_chooses_debezium_and_jdbc_sink_stays_confluent() -> None:
    assert connector_class("debezium-jdbc-sink") == DEBEZIUM_JDBC_SINK
    assert connector_class("jdbc-sink") == "io.confluent.connect.jdbc.JdbcSinkConnector"
    # The Confluent shorthand keeps passing its keys through, unchecked, as before.
    assert connector_config("c", "jdbc-sink", ["t"], {"pk.mode": "record_key"})["pk.mode"] == "record_key"


def test_confluent_spellings_are_mapped_to_debezium_keys() -> None:
    config = debezium(
        {
            "connection.url": "${URL}",
            "connection.user": "app",
            "table.name.format": "sink.orders",
            "pk.mode": "record_value",
            "pk.fields": ["order_id"],
            "auto.create": True,
            "auto.evolve": False,
            "insert.mode": "upsert",
        }
    )
    assert config == {
        "collection.name.format": "sink.orders",
        "connection.url": "${URL}",
        "connection.username": "app",
        "connector.class": DEBEZIUM_JDBC_SINK,
        "insert.mode": "upsert",
        "name": "db",
        "primary.key.fields": "order_id",
        "primary.key.mode": "record_value",
        "schema.evolution": "basic",
        "topics": "t",
    }
    assert list(config) == sorted(config)


def test_framework_keys_and_mask_transforms_pass() -> None:
    declared = {"tasks.max": 2, "value.converter.schemas.enable": True, "errors.tolerance": "all"}
    config = debezium(declared, [("ssn", "redact")])
    assert config["value.converter.schemas.enable"] == "true" and config["tasks.max"] == "2"
    assert config["transforms"] == "streamt_mask_ssn"


def test_an_unknown_key_is_refused_with_a_suggestion() -> None:
    with pytest.raises(ConfigProblem) as refused:
        debezium({"conection.url": "x"})
    assert "conection.url" in str(refused.value)
    assert refused.value.suggestion.startswith("Did you mean 'connection.url'?")


def test_two_spellings_of_one_key_with_different_values_are_refused() -> None:
    with pytest.raises(ConfigProblem, match="both set"):
        debezium({"pk.mode": "record_key", "primary.key.mode": "none"})
    assert debezium({"pk.mode": "none", "primary.key.mode": "none"})["primary.key.mode"] == "none"


def test_refused_keys_are_an_e204_diagnostic_and_fail_compile(streamt_project: Callable[..., Path]) -> None:
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "k:9092"},
                    "connect": {"clusters": {"c": {"rest_url": "u"}}},
                },
                "sources": [{"name": "s", "topic": "t"}],
                "models": [
                    {
                        "name": "out",
                        "from": [{"source": "s"}],
                        "sink": {"connector": DEBEZIUM_JDBC_SINK, "config": {"batch.sise": 10}},
                    }
                ],
            }
        }
    )
    project = load_project(root, process_env={})
    [diagnostic] = plugin.streamt_validate(project=project, env="default")
    assert diagnostic.code.code == "E204_MISSING_SINK_CONFIG"
    assert "batch.sise" in diagnostic.message and "batch.size" in (diagnostic.suggestion or "")
    with pytest.raises(StreamtError):
        compile_sink(project, project.model("out"))
