"""Comparison and classification cases the scripted history does not walk through: executor moves,
schema compatibility, sinks, tombstones, added/removed resources, environments (type widening: streamt-impact/tests)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from streamt.errors import StreamtError
from streamt_impact.render import markdown, text
from streamt_impact.report import Report, build
from streamt_impact.snapshot import Side, take

RUNTIME = {
    "kafka": {"bootstrap_servers": "k:9092"},
    "kafka_streams": {"image": "sha256:" + "a" * 64, "docker_network": "n", "initial_offset": "latest"},
    "flink": {"default": "local", "clusters": {"local": {"rest_url": "http://localhost:8081"}}},
    "connect": {"default": "c", "clusters": {"c": {"rest_url": "http://localhost:8083"}}},
}
RAW = {
    "name": "raw",
    "columns": [{"name": "id", "type": "STRING"}, {"name": "n", "type": "BIGINT"}],
}
JOB = {
    "name": "out",
    "materialized": "topic",
    "executor": "kafka_streams",
    "sql": "SELECT id, n FROM {{ ref('raw') }} WHERE n > 1",
}
SINK = {
    "name": "to_db",
    "from": [{"ref": "out"}],
    "sink": {"connector": "jdbc-sink", "config": {"connection.url": "${JDBC_URL}", "table.name.format": "t"}},
}


def project(**sections: Any) -> dict[str, bytes]:
    document = {"project": {"name": "p"}, "runtime": RUNTIME, "models": [RAW, JOB, SINK], **sections}
    return {"stream_project.yml": yaml.safe_dump(document, sort_keys=False).encode()}


def report(before: dict[str, bytes], after: dict[str, bytes], env: str | None = None) -> Report:
    base = take(Side("base", "main", "a" * 40), before, env)
    head = take(Side("head", None, None), after, env)
    return build(base, head)


def fields(result: Report) -> dict[tuple[str, str], list[tuple[str, str, str | None]]]:
    return {(c.kind, c.name): [(f.field, f.classification, f.workflow) for f in c.fields] for c in result.changes}


def test_no_change_is_an_empty_report_in_every_format() -> None:
    result = report(project(), project())
    assert result.changes == () and result.impacted == () and result.highest is None
    assert "No declared changes." in text(result) and "No declared changes." in markdown(result)
    assert json.loads(json.dumps(result.to_json()))["summary"]["resources_changed"] == 0


def test_executor_move_is_a_runner_replacement_that_reaches_the_sink() -> None:
    moved = {**JOB, "executor": "flink", "materialized": "flink", "sql": JOB["sql"]}
    result = report(project(), project(models=[RAW, {**moved, "materialized": "topic"}, SINK]))
    assert fields(result)[("model", "out")][0] == ("executor", "operational", "executor_replacement")
    assert [i.name for i in result.impacted] == ["to_db"]


def test_kafka_streams_predicate_change_names_the_runner_replacement() -> None:
    result = report(project(), project(models=[RAW, {**JOB, "sql": JOB["sql"].replace("n > 1", "n > 2")}, SINK]))
    [(field, level, workflow)] = fields(result)[("model", "out")]
    assert (field, level, workflow) == ("sql", "operational", "kafka_streams_replacement")


def test_sink_config_changes_never_echo_values_and_a_class_change_is_operational() -> None:
    config = {**SINK["sink"]["config"], "connection.url": "jdbc:postgresql://db/secret-name"}
    result = report(project(), project(models=[RAW, JOB, {**SINK, "sink": {**SINK["sink"], "config": config}}]))
    [change] = result.changes
    assert [(f.field, f.classification, f.before, f.after) for f in change.fields] == [
        ("sink.config.connection.url", "non-breaking", None, None)
    ]
    assert "secret-name" not in json.dumps(result.to_json()) + text(result) + markdown(result)
    swapped = {**SINK, "sink": {**SINK["sink"], "connector": "s3-sink"}}
    result = report(project(), project(models=[RAW, JOB, swapped]))
    assert fields(result)[("model", "to_db")][0] == ("sink.connector", "operational", "connector_replacement")


def test_a_tombstone_is_a_reviewed_removal() -> None:
    lifecycle = {"connector_removals": [{"logical_owner": "old_sink", "name": "old_sink", "cluster": "c"}]}
    result = report(project(), project(lifecycle=lifecycle))
    assert fields(result) == {
        ("lifecycle", "old_sink"): [("lifecycle.connector_removals", "operational", "reviewed_removal")]
    }


def test_schema_compatibility_lowered_is_breaking_and_raised_is_not() -> None:
    def with_compatibility(level: str) -> dict[str, bytes]:
        source = {
            "name": "events",
            "topic": "events",
            "columns": [{"name": "id", "type": "STRING"}],
            "schema": {"format": "avro", "compatibility": level},
        }
        reader = {"name": "app", "type": "application", "consumes": [{"source": "events"}]}
        return project(sources=[source], exposures=[reader])

    lowered = report(with_compatibility("FULL_TRANSITIVE"), with_compatibility("BACKWARD"))
    assert fields(lowered)[("source", "events")][0][:2] == ("schema.compatibility", "breaking")
    assert [(i.name, i.breaking) for i in lowered.impacted] == [("app", True)]
    sideways = report(with_compatibility("BACKWARD"), with_compatibility("FORWARD"))
    assert fields(sideways)[("source", "events")][0][:2] == ("schema.compatibility", "breaking")
    raised = report(with_compatibility("BACKWARD"), with_compatibility("FULL"))
    assert fields(raised)[("source", "events")][0][:2] == ("schema.compatibility", "non-breaking")
    assert raised.impacted == ()


def test_added_and_removed_resources() -> None:
    extra = {"name": "extra", "sql": "SELECT * FROM {{ ref('raw') }}"}
    added = report(project(), project(models=[RAW, JOB, SINK, extra]))
    assert fields(added) == {("model", "extra"): [("declaration", "non-breaking", None)]}
    adopted = report(project(), project(models=[RAW, JOB, SINK, {**extra, "ownership": {"mode": "adopted"}}]))
    assert fields(adopted) == {("model", "extra"): [("declaration", "operational", "adoption")]}
    removed = report(project(models=[RAW, JOB, SINK, extra]), project())
    assert fields(removed) == {("model", "extra"): [("declaration", "operational", "reviewed_removal")]}


def test_a_model_renamed_with_its_topic_kept_is_not_a_removal() -> None:
    reader = {"name": "app", "type": "application", "consumes": [{"ref": "raw"}]}
    renamed = {**RAW, "name": "raw_v2", "topic": {"name": "raw"}}
    job = {**JOB, "sql": JOB["sql"].replace("ref('raw')", "ref('raw_v2')")}
    result = report(
        project(exposures=[reader]),
        project(models=[renamed, job, SINK], exposures=[{**reader, "consumes": [{"ref": "raw_v2"}]}]),
    )
    found = fields(result)
    assert found[("model", "raw")] == [("declaration", "operational", "adoption")]
    assert found[("model", "raw_v2")] == [("declaration", "non-breaking", None)]
    assert found[("model", "out")] == [("sql", "non-breaking", None)]  # the same query runs
    assert not any(i.breaking for i in result.impacted)


def test_a_reader_without_declared_columns_is_assumed_to_read_every_column() -> None:
    def events(amount_type: str) -> dict[str, Any]:
        return {"name": "events", "topic": "events", "columns": [{"name": "amount", "type": amount_type}]}

    reader = {"name": "app", "type": "dashboard", "consumes": [{"source": "events"}]}
    result = report(
        project(sources=[events("BIGINT")], exposures=[reader]), project(sources=[events("INT")], exposures=[reader])
    )
    assert fields(result) == {("source", "events"): [("columns.amount", "breaking", None)]}
    assert {i.name: i.breaking for i in result.impacted} == {"app": True}


def test_environment_selection_and_errors_name_the_side() -> None:
    files = {
        "stream_project.yml": b"project: {name: p}\n",
        "environments/dev.yml": yaml.safe_dump({"environment": {"name": "dev"}, "runtime": RUNTIME}).encode(),
        "environments/prod.yml": yaml.safe_dump({"environment": {"name": "prod"}, "runtime": RUNTIME}).encode(),
    }
    assert report(files, files, env="prod").environment == "prod"
    with pytest.raises(StreamtError) as caught:
        report({"models/x.yml": b"models: []\n"}, files, env="dev")
    assert caught.value.diagnostics[0].message.startswith("At base main (aaaaaaaaaaaa): there is no stream_project.yml")
    broken = {**files, "models/x.yml": b"models: [{name: x, sql: 'SELECT * FROM {{ ref(\"nope\") }}'}]\n"}
    with pytest.raises(StreamtError) as caught:
        report(files, broken, env="dev")
    assert caught.value.diagnostics[0].message.startswith("At head the working tree: ")
