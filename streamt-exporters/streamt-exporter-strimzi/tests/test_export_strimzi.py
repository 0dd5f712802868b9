"""`export strimzi` output checked against the official KafkaTopic CRD with jsonschema.

The CRD is test data in ``shared/schemas/strimzi/`` (never shipped).
Kubernetes prunes unknown fields instead of rejecting them, so a stray field
would pass the published schema silently; the test closes every object that
does not preserve unknown fields, which makes a wrong field name fail here.
"""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from shared_material import SHARED
from streamt.cli import run
from streamt_exporter_strimzi.mapping import resource_name
from streamt_testing import CliOutcome, run_cli

CRD = SHARED / "schemas" / "strimzi" / "packaging" / "install" / "cluster-operator" / "043-Crd-kafkatopic.yaml"
EXAMPLES = SHARED / "spec" / "examples"
METADATA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name", "namespace", "labels"],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63},
        "namespace": {"type": "string"},
        "labels": {
            "type": "object",
            "required": ["strimzi.io/cluster"],
            "additionalProperties": {"type": "string", "maxLength": 63},
        },
    },
}


def closed(schema: Any) -> Any:
    if isinstance(schema, dict):
        schema = {k: closed(v) for k, v in schema.items()}
        preserves = schema.get("x-kubernetes-preserve-unknown-fields")
        if schema.get("type") == "object" and "properties" in schema and not preserves:
            schema.setdefault("additionalProperties", False)
    elif isinstance(schema, list):
        schema = [closed(v) for v in schema]
    return schema


def served_schema() -> tuple[str, dict[str, Any]]:
    assert CRD.is_file(), f"the official KafkaTopic CRD is expected at {CRD}"
    crd = yaml.safe_load(CRD.read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["served"] and v["storage"]]
    schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])
    schema["properties"].pop("status", None)
    schema["properties"]["metadata"] = METADATA
    schema["required"] = sorted({*schema.get("required", []), "apiVersion", "kind", "metadata", "spec"})
    return f"{crd['spec']['group']}/{version['name']}", closed(schema)


def validate(documents: list[dict[str, Any]]) -> None:
    api_version, schema = served_schema()
    for document in documents:
        assert document["apiVersion"] == api_version and document["kind"] == "KafkaTopic"
        jsonschema.validate(document, schema)


def export(*args: str | Path) -> CliOutcome:
    return run_cli("export", "strimzi", "--namespace", "payments-prod", "--cluster-name", "payments-kafka", *args)


def test_the_schema_used_here_rejects_a_wrong_field() -> None:
    _, schema = served_schema()
    document = {
        "apiVersion": "kafka.strimzi.io/v1",
        "kind": "KafkaTopic",
        "metadata": {"name": "a", "namespace": "n", "labels": {"strimzi.io/cluster": "c"}},
        "spec": {"partitions": 1, "replicationFactor": 1},
    }
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_payments_topics_export_as_valid_kafka_topics_with_topic_name_for_dotted_names() -> None:
    outcome = export("--project-dir", EXAMPLES / "payments-pipeline")
    assert outcome.ok, outcome.envelope
    documents = outcome.data["documents"]
    validate(documents)
    by_topic = {d["spec"].get("topicName", d["metadata"]["name"]): d for d in documents}
    assert {"payments.clean.v1", "payments.merchant-totals.v1"} <= set(by_topic)
    clean = by_topic["payments.clean.v1"]
    assert clean["spec"]["partitions"] == 12 and clean["spec"]["replicas"] == 1
    assert clean["metadata"]["namespace"] == "payments-prod"
    assert clean["metadata"]["labels"] == {"strimzi.io/cluster": "payments-kafka"}
    assert clean["metadata"]["name"].startswith("payments-clean-v1-")
    # the external source topic is omitted with W120; jobs, connector and schema with one bounded W121
    assert outcome.warning_codes.count("W120_STRIMZI_EXTERNAL_TOPIC_OMITTED") == 1
    assert outcome.warning_codes.count("W121_STRIMZI_ARTIFACTS_OMITTED") == 1
    counts = outcome.data["counts"]
    assert counts["kafka_topics"] == len(documents) and counts["omitted_external_topics"] == 1
    assert counts["omitted_artifacts"] == 5  # one schema, two Flink jobs, one test job, one connector


def test_text_output_is_only_canonical_yaml_and_parses_back_to_the_json_documents() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["export", "strimzi", "--namespace", "n", "--cluster-name", "c"]
    assert run([*argv, "--project-dir", str(EXAMPLES / "minimal-topic")], out, err) == 0
    documents = [d for d in yaml.safe_load_all(out.getvalue()) if d is not None]
    validate(documents)
    assert [d["spec"]["topicName"] for d in documents] == ["web.clicks.retry.v1", "web.page-titles.v1"]
    assert documents[0]["spec"]["config"] == {"retention.ms": "259200000"}
    assert "W120" in err.getvalue() and "W120" not in out.getvalue()
    again = io.StringIO()
    run([*argv, "--project-dir", str(EXAMPLES / "minimal-topic")], again, io.StringIO())
    assert again.getvalue() == out.getvalue()


def test_valid_kubernetes_names_are_used_as_is_without_topic_name(streamt_project: Any) -> None:
    files = {
        "stream_project.yml": {
            "project": {"name": "p"},
            "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
            "models": [{"name": "orders", "topic": {"name": "orders-v1"}}, {"name": "Upper_Case"}],
        }
    }
    outcome = export("--project-dir", streamt_project(files))
    assert outcome.ok, outcome.envelope
    validate(outcome.data["documents"])
    plain, odd = sorted(outcome.data["documents"], key=lambda d: d["metadata"]["name"] != "orders-v1")
    assert plain["metadata"]["name"] == "orders-v1" and "topicName" not in plain["spec"]
    assert odd["spec"]["topicName"] == "Upper_Case" and odd["metadata"]["name"].startswith("upper-case-")


def test_names_that_differ_only_in_invalid_characters_do_not_collide() -> None:
    assert resource_name("a.b") != resource_name("a_b") != resource_name("A.b")
    long = "x" * 300
    assert len(resource_name(long)) <= 63


def test_adopted_topics_are_e509_and_nothing_is_written(tmp_path: Path) -> None:
    target = tmp_path / "topics.yaml"
    outcome = export("--project-dir", EXAMPLES / "ownership-gateway", "--output-file", target)
    assert outcome.exit_code == 1 and outcome.error_codes == ["E509_STRIMZI_INVALID"]
    assert "crm.consent-events.v1" in outcome.envelope["errors"][0]["message"]
    assert not target.exists()


@pytest.mark.parametrize(("option", "value"), [("--namespace", "Bad_NS"), ("--cluster-name", "-bad-")])
def test_invalid_namespace_or_cluster_name_is_e509(option: str, value: str) -> None:
    values = {"--namespace": "ns", "--cluster-name": "c", option: value}
    args = [item for pair in values.items() for item in pair]
    outcome = run_cli("export", "strimzi", *args, "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.error_codes == ["E509_STRIMZI_INVALID"]


def test_namespace_and_cluster_name_are_required() -> None:
    outcome = run_cli("export", "strimzi", "--namespace", "n", "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.exit_code == 1 and outcome.error_codes == ["E900_USAGE_ERROR"]


def test_output_file_is_written_atomically_and_text_stdout_stays_empty(tmp_path: Path) -> None:
    target = tmp_path / "kafkatopics.yaml"
    target.write_text("previous")
    out = io.StringIO()
    argv = ["export", "strimzi", "--namespace", "n", "--cluster-name", "c", "--output-file", str(target)]
    assert run([*argv, "--project-dir", str(EXAMPLES / "minimal-topic")], out, io.StringIO()) == 0
    assert out.getvalue() == ""
    validate([d for d in yaml.safe_load_all(target.read_text()) if d])
    assert [p.name for p in tmp_path.iterdir()] == ["kafkatopics.yaml"]
