"""``runtime.connect`` is this plugin's section: read back typed, and what a sink model needs of it (E204, E205)."""

from __future__ import annotations

from typing import Any

from streamt.sdk import load_project
from streamt_connect.config import ConnectCluster, connect_runtime

SINK = {"name": "to_db", "materialized": "sink", "from": [{"source": "orders"}]}


def _files(connect: dict[str, Any] | None, sink: dict[str, Any] | None) -> dict[str, Any]:
    runtime: dict[str, Any] = {"kafka": {"bootstrap_servers": "k:9092"}}
    if connect is not None:
        runtime["connect"] = connect
    model = {**SINK, **({"sink": sink} if sink is not None else {})}
    return {
        "stream_project.yml": {
            "project": {"name": "sinks"},
            "runtime": runtime,
            "sources": [{"name": "orders", "topic": "orders"}],
            "models": [model],
        }
    }


def test_the_section_is_read_back_typed(streamt_project) -> None:
    connect = {"default": "main", "clusters": {"main": {"rest_url": "http://c:8083", "username": "u"}}}
    project = load_project(streamt_project(_files(connect, {"connector": "jdbc-sink"})), process_env={})
    runtime = connect_runtime(project.runtime)
    assert runtime is not None and runtime.default_cluster == "main"
    assert runtime.clusters["main"] == ConnectCluster(rest_url="http://c:8083", username="u")


def test_a_sink_without_connector_settings_or_runtime_connect_is_e204_then_e205(streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(_files(None, None)))
    assert [(e["code"], e["message"]) for e in outcome.envelope["errors"]] == [
        ("E204_MISSING_SINK_CONFIG", "Sink model 'to_db' has no connector configuration"),
        ("E205_CONNECT_REQUIRED", "Sink model 'to_db' needs runtime.connect"),
    ]
    connect = {"clusters": {"main": {"rest_url": "http://c:8083"}}}
    configured = streamt_cli("validate", "-p", streamt_project(_files(connect, {"connector": "jdbc-sink"})))
    assert not {"E204_MISSING_SINK_CONFIG", "E205_CONNECT_REQUIRED"} & set(configured.error_codes)
