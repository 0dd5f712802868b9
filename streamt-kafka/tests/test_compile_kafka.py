"""Topic and Schema Registry subject artifacts, and the topic/subject planners."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from streamt.artifacts import Artifact
from streamt.plan import Observation
from streamt.project.loader import load_project
from streamt_kafka import plugin
from streamt_kafka.planning import SchemaPlanner, TopicPlanner
from streamt_kafka.schemas import avro_type_of
from streamt_testing import compile_with

RUNTIME = {"kafka": {"bootstrap_servers": "localhost:9092"}}


def compile_all(streamt_project: Callable[..., Path], **body: Any) -> dict[tuple[str, str], Artifact]:
    files = {"stream_project.yml": {"project": {"name": "p"}, "runtime": RUNTIME, **body}}
    project = load_project(streamt_project(files))
    found: dict[tuple[str, str], Artifact] = {}
    for declaration in (*project.sources, *project.models, *project.tests):
        for artifact in compile_with(plugin, project, declaration):
            found[artifact.sort_key] = artifact
    return found


def test_managed_model_topic_merges_defaults_under_its_own_settings(streamt_project: Callable[..., Path]) -> None:
    found = compile_all(
        streamt_project,
        defaults={"topic": {"partitions": 6, "replication_factor": 3, "config": {"retention.ms": 1, "x.y": True}}},
        models=[{"name": "m", "topic": {"name": "m.v1", "partitions": 2, "config": {"retention.ms": 86400000}}}],
    )
    topic = found[("topic", "m.v1")]
    assert (topic.name, topic.ownership, topic.provider) == ("m", "managed", "streamt-kafka")
    assert topic.spec == {
        "config": {"retention.ms": "86400000", "x.y": "true"},
        "name": "m.v1",
        "partitions": 2,
        "replication_factor": 3,
    }


def test_config_values_compile_to_the_same_bytes_whatever_their_yaml_type(streamt_project: Callable[..., Path]) -> None:
    as_int = compile_all(streamt_project, models=[{"name": "m", "topic": {"config": {"retention.ms": 5}}}])
    as_str = compile_all(streamt_project, models=[{"name": "m", "topic": {"config": {"retention.ms": "5"}}}])
    assert as_int[("topic", "m")].checksum == as_str[("topic", "m")].checksum


def test_external_and_adopted_topics_record_only_declared_keys(streamt_project: Callable[..., Path]) -> None:
    found = compile_all(
        streamt_project,
        defaults={"topic": {"partitions": 6}},
        sources=[
            {"name": "ext", "topic": "ext.v1"},
            {"name": "adp", "topic": "adp.v1", "ownership": {"mode": "adopted"}},
            {"name": "own", "topic": "own.v1", "ownership": {"mode": "managed"}},
        ],
        models=[{"name": "am", "ownership": {"mode": "adopted"}, "topic": {"partitions": 4}}],
    )
    assert found[("topic", "ext.v1")].spec == {"name": "ext.v1"}
    assert found[("topic", "ext.v1")].ownership == "external"
    assert found[("topic", "adp.v1")].spec == {"name": "adp.v1"}
    assert found[("topic", "am")].spec == {"name": "am", "partitions": 4}
    assert found[("topic", "own.v1")].spec["partitions"] == 6


def test_sink_and_virtual_topic_models_create_no_topic(streamt_project: Callable[..., Path]) -> None:
    found = compile_all(
        streamt_project,
        sources=[{"name": "s", "topic": "s.v1"}],
        models=[{"name": "out", "from": [{"source": "s"}], "sink": {"connector": "jdbc-sink", "config": {}}}],
    )
    assert [key for key in found if key[0] == "topic"] == [("topic", "s.v1")]


COLUMNS = [
    {"name": "id", "type": "STRING", "required": True},
    {"name": "amount", "type": "DECIMAL(10,2)"},
    {"name": "at", "type": "TIMESTAMP(3)"},
]


def test_a_managed_subject_without_definition_gets_an_avro_record_from_columns(
    streamt_project: Callable[..., Path],
) -> None:
    source = {"name": "s", "topic": "pay.v1", "ownership": {"mode": "managed"}, "schema": {}, "columns": COLUMNS}
    schema = compile_all(streamt_project, sources=[source])[("schema", "pay.v1-value")]
    assert schema.depends_on == (("topic", "pay.v1"),)
    assert schema.spec["format"] == "AVRO"
    record = json.loads(schema.spec["schema"])
    assert record["name"] == "pay_v1" and record["type"] == "record"
    assert record["fields"][0] == {"name": "id", "type": "string"}
    assert record["fields"][1]["type"] == [
        "null",
        {"logicalType": "decimal", "precision": 10, "scale": 2, "type": "bytes"},
    ]
    assert record["fields"][2]["default"] is None


def test_an_external_subject_is_a_declaration_with_its_pinned_version(streamt_project: Callable[..., Path]) -> None:
    source = {"name": "s", "topic": "c.v3", "schema": {"subject": "c.v3-value", "version": 7, "format": "avro"}}
    schema = compile_all(streamt_project, sources=[source])[("schema", "c.v3-value")]
    assert (schema.ownership, schema.spec) == ("external", {"format": "AVRO", "subject": "c.v3-value", "version": 7})


def test_inline_json_definitions_are_canonicalised(streamt_project: Callable[..., Path]) -> None:
    def with_definition(text: str) -> Artifact:
        source = {
            "name": "s",
            "topic": "t",
            "ownership": {"mode": "managed"},
            "schema": {"format": "json", "definition": text, "compatibility": "backward"},
        }
        return compile_all(streamt_project, sources=[source])[("schema", "t-value")]

    spaced = with_definition('{ "type": "object",\n  "title": "x" }')
    compact = with_definition('{"title":"x","type":"object"}')
    assert spaced.checksum == compact.checksum and spaced.spec["compatibility"] == "BACKWARD"


@pytest.mark.parametrize(
    ("flink", "avro"),
    [("BIGINT", "long"), ("boolean", "boolean"), ("INT", "int"), ("DATE", {"logicalType": "date", "type": "int"})],
)
def test_flink_types_map_to_avro(flink: str, avro: Any) -> None:
    assert avro_type_of(flink) == avro


TOPIC = Artifact("topic", "m", "m.v1", {"name": "m.v1", "partitions": 6, "config": {"retention.ms": "10"}})


def test_topic_planner_creates_when_absent_and_compares_declared_keys_only() -> None:
    planner = TopicPlanner()
    (create,) = planner.plan(TOPIC, Observation("absent", assumed=True))
    assert (create.action, create.summary) == ("create", "6 partitions")
    live = {"name": "m.v1", "partitions": 6, "config": {"retention.ms": "10", "segment.ms": "99"}, "rf": 3}
    (noop,) = planner.plan(TOPIC, Observation("present", live))
    assert noop.action == "noop"
    (update,) = planner.plan(TOPIC, Observation("present", {**live, "partitions": 3}))
    assert update.action == "update" and update.evidence["changes"] == {"partitions": {"from": 3, "to": 6}}


def test_a_partition_decrease_is_a_safety_blocker() -> None:
    update, blocker = TopicPlanner().plan(TOPIC, Observation("present", {"name": "m.v1", "partitions": 12}))
    assert update.action == "update"
    assert (blocker.reason, blocker.identity) == ("kafka_partition_reduction", "m.v1")


def test_schema_planner_registers_a_new_version_when_the_text_changes() -> None:
    subject = Artifact(
        "schema", "s", "t-value", {"format": "AVRO", "schema": '{"type":"string"}', "subject": "t-value"}
    )
    assert SchemaPlanner().plan(subject, Observation("absent"))[0].action == "create"
    changed = Observation("present", {**subject.spec, "schema": '{"type":"long"}'})
    assert SchemaPlanner().plan(subject, changed)[0].action == "update"
