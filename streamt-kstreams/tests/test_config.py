"""``runtime.kafka_streams`` is this plugin's section: its keys, checks, declaration check and JSON Schema."""

from __future__ import annotations

from typing import Any

from streamt.project.json_schema import file_schemas
from streamt_kstreams.config import IMAGE_ID_PATTERN, INITIAL_OFFSETS

IMAGE = "sha256:" + "b" * 64


def _project(runtime_streams: dict[str, Any] | None, executor: str = "kafka_streams") -> dict[str, Any]:
    runtime: dict[str, Any] = {"kafka": {"bootstrap_servers": "k:9092"}}
    if runtime_streams is not None:
        runtime["kafka_streams"] = runtime_streams
    return {
        "stream_project.yml": {
            "project": {"name": "runner"},
            "runtime": runtime,
            "sources": [{"name": "s", "topic": "s", "columns": [{"name": "id", "type": "STRING"}]}],
            "models": [{"name": "m", "executor": executor, "sql": "SELECT id FROM {{ source('s') }}"}],
        }
    }


def test_a_model_on_the_runner_without_the_section_is_e208(streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(_project(None)))
    assert outcome.error_codes == ["E208_MISSING_CONFIG"]
    assert outcome.envelope["errors"][0]["message"] == (
        "Model 'm' uses executor kafka_streams but runtime.kafka_streams is not configured"
    )
    on_flink = streamt_cli("validate", "-p", streamt_project(_project(None, executor="flink")))
    assert not any("kafka_streams" in e["message"] for e in on_flink.envelope["errors"])


def test_the_section_refuses_a_tag_a_docker_network_and_an_unknown_offset(streamt_project, streamt_cli) -> None:
    bad = {"image": "runner:latest", "docker_network": "bridge", "initial_offset": "middle"}
    outcome = streamt_cli("validate", "-p", streamt_project(_project(bad)))
    assert [e["message"] for e in outcome.envelope["errors"]] == [
        "runtime.kafka_streams.image 'runner:latest' is not an immutable image ID or digest",
        "runtime.kafka_streams.docker_network 'bridge' is not host or a named user network",
        "Invalid initial_offset 'middle' in runtime.kafka_streams. Valid: earliest, latest",
    ]
    good = {"image": IMAGE, "docker_network": "streamt-net", "initial_offset": "earliest"}
    assert streamt_cli("validate", "-p", streamt_project(_project(good))).exit_code == 0


def test_a_missing_key_is_e501_at_its_position(streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(_project({"image": IMAGE, "docker_network": "host"})))
    assert outcome.error_codes == ["E501_PARSE_ERROR"]
    assert "runtime.kafka_streams.initial_offset" in outcome.envelope["errors"][0]["message"]


def test_the_json_schema_shows_the_value_sets_the_check_accepts() -> None:
    streams = file_schemas()["project"]["properties"]["runtime"]["properties"]["kafka_streams"]
    assert "(plugin: kstreams)" in streams["description"]
    offset, image = streams["properties"]["initial_offset"], streams["properties"]["image"]
    assert {"enum": list(INITIAL_OFFSETS)} in offset["anyOf"]
    assert {"pattern": IMAGE_ID_PATTERN} in image["anyOf"]
