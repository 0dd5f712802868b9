"""`docs openlineage` output checked against the official OpenLineage JSON Schemas (2020-12) with jsonschema.

The schemas are test data in ``shared/schemas/openlineage/spec/`` (never shipped). Every event is
validated against the core ``OpenLineage.json`` through a registry of all files, and every facet additionally
against its own facet schema (the core only checks the ``_producer``/``_schemaURL`` base of a facet).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from shared_material import SHARED
from streamt.cli import run
from streamt_exporter_openlineage.checks import event_problems
from streamt_exporter_openlineage.namespaces import derive_kafka_uri
from streamt_testing import CliOutcome, run_cli

SPEC = SHARED / "schemas" / "openlineage" / "spec"
EXAMPLES = SHARED / "spec" / "examples"
ALL_EXAMPLES = [
    ("minimal-topic", None),
    ("payments-pipeline", None),
    ("multi-env", "dev"),
    ("ownership-gateway", None),
    ("kafka-streams", None),
]
JOB_NS = "https://lineage.example/namespaces/prod"
SENTINEL = "s3ntinel-OL-7c1e"


def _registry() -> tuple[dict[str, Any], Registry]:
    assert (SPEC / "OpenLineage.json").is_file(), f"the official OpenLineage schemas are expected under {SPEC}"
    resources = []
    core: dict[str, Any] = {}
    for path in sorted(SPEC.rglob("*.json")):
        contents = json.loads(path.read_text())
        resources.append((contents["$id"], Resource.from_contents(contents, default_specification=DRAFT202012)))
        if path.name == "OpenLineage.json":
            core = contents
    return core, Registry().with_resources(resources)


CORE, REGISTRY = _registry()


def validate(events: list[dict[str, Any]]) -> None:
    checker = jsonschema.Draft202012Validator(CORE, registry=REGISTRY, format_checker=jsonschema.FormatChecker())
    for event in events:
        checker.validate(event)
        assert "run" not in event
        targets = [event["dataset"]] if "dataset" in event else [event["job"]]
        for target in targets:
            for facet in target.get("facets", {}).values():
                schema = {"$ref": facet["_schemaURL"]}
                jsonschema.Draft202012Validator(schema, registry=REGISTRY).validate(facet)


def docs(*args: str | Path) -> CliOutcome:
    return run_cli("docs", "openlineage", "--job-namespace", JOB_NS, *args)


@pytest.mark.parametrize(("example", "env"), ALL_EXAMPLES)
def test_every_example_exports_events_valid_against_the_official_schemas(example: str, env: str | None) -> None:
    args: list[str | Path] = ["--project-dir", EXAMPLES / example]
    if env:
        args += ["--env", env]
    outcome = docs(*args)
    assert outcome.ok, outcome.envelope
    events = outcome.data["events"]
    assert events and all(event_problems(e) == [] for e in events)
    validate(events)
    counts = outcome.data["counts"]
    assert counts["events"] == len(events) == counts["dataset_events"] + counts["job_events"]


def _by_name(events: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    datasets = {e["dataset"]["name"]: e["dataset"] for e in events if "dataset" in e}
    jobs = {e["job"]["name"]: e for e in events if "job" in e}
    return datasets, jobs


def test_payments_lineage_schema_facets_and_sink_warning() -> None:
    outcome = docs("--project-dir", EXAMPLES / "payments-pipeline")
    assert outcome.ok
    datasets, jobs = _by_name(outcome.data["events"])
    failures = "_streamt_test_failures.card-payments.default.merchant_totals_monitor"  # its continuous test's
    assert set(datasets) == {"payments.card-events.v1", "payments.clean.v1", "payments.merchant-totals.v1", failures}
    assert {d["namespace"] for d in datasets.values()} == {"kafka://localhost:9092"}
    fields = datasets["payments.card-events.v1"]["facets"]["schema"]["fields"]
    assert fields[0] == {"name": "payment_id", "ordinal_position": 1, "type": "STRING"}
    # contract columns count as declared columns
    assert [f["name"] for f in datasets["payments.clean.v1"]["facets"]["schema"]["fields"]] == [
        "payment_id",
        "amount_cents",
    ]
    assert "schema" not in datasets["payments.merchant-totals.v1"]["facets"]
    assert set(jobs) == {
        "card-payments.payments_clean",
        "card-payments.merchant_totals_1m",
        "card-payments.payments_to_warehouse",
    }
    clean = jobs["card-payments.payments_clean"]
    assert clean["inputs"] == [{"name": "payments.card-events.v1", "namespace": "kafka://localhost:9092"}]
    assert clean["outputs"] == [{"name": "payments.clean.v1", "namespace": "kafka://localhost:9092"}]
    assert clean["job"]["namespace"] == JOB_NS
    assert clean["job"]["facets"]["jobType"]["integration"] == "FLINK"
    assert jobs["card-payments.payments_to_warehouse"]["outputs"] == []
    assert outcome.warning_codes.count("W111_OPENLINEAGE_SINK_OUTPUT_OMITTED") == 1
    # merchant totals, and the failures topic (no declaration of its columns)
    assert outcome.warning_codes.count("W110_OPENLINEAGE_SCHEMA_INCOMPLETE") == 2


def test_gateway_virtual_topics_use_the_gateway_namespace() -> None:
    outcome = docs("--project-dir", EXAMPLES / "ownership-gateway", "--gateway-namespace", "kafka://gw.example:6969")
    assert outcome.ok
    datasets, jobs = _by_name(outcome.data["events"])
    assert datasets["crm.customers.gold"]["namespace"] == "kafka://gw.example:6969"
    assert datasets["crm.customers.gold"]["facets"]["datasetType"]["subType"] == "VIRTUAL"
    gold = jobs["customer-data.customers_gold_view"]
    assert gold["inputs"] == [{"name": "crm.customers.cdc.v3", "namespace": "kafka://localhost:9092"}]
    assert gold["outputs"] == [{"name": "crm.customers.gold", "namespace": "kafka://gw.example:6969"}]
    # no RunEvent, no test job, no tombstone
    assert not any("run" in e for e in outcome.data["events"])
    assert "customer-data.customers_emea_view" not in jobs


def test_the_schemas_used_here_reject_wrong_fields() -> None:
    outcome = docs("--project-dir", EXAMPLES / "payments-pipeline")
    events = outcome.data["events"]
    dataset_event = next(e for e in events if "dataset" in e and "schema" in e["dataset"]["facets"])
    bad_time = {**dataset_event, "eventTime": "yesterday"}
    no_producer = {k: v for k, v in dataset_event.items() if k != "producer"}
    with pytest.raises(jsonschema.ValidationError):
        validate([no_producer])
    with_run = {**dataset_event, "run": {"runId": "3f5e2b1c-1a2b-4c3d-8e9f-0a1b2c3d4e5f"}}
    with pytest.raises(AssertionError):  # the core schema lets it through; a static event must not have one
        validate([with_run])
    job_event = next(e for e in events if "job" in e)
    job_type = {**job_event["job"]["facets"]["jobType"], "processingType": 1}
    wrong_job = {**job_event, "job": {**job_event["job"], "facets": {"jobType": job_type}}}
    with pytest.raises(jsonschema.ValidationError):
        validate([wrong_job])
    assert event_problems(wrong_job)
    facets = dataset_event["dataset"]["facets"]
    schema = facets["schema"]
    bad_schema = {**schema, "fields": [{"type": "STRING"}]}  # a field without a name
    wrong = {**dataset_event, "dataset": {**dataset_event["dataset"], "facets": {**facets, "schema": bad_schema}}}
    with pytest.raises(jsonschema.ValidationError):
        validate([wrong])
    assert (
        event_problems(wrong) and event_problems(with_run) and event_problems(bad_time) and event_problems(no_producer)
    )
    assert event_problems({**dataset_event, "datset": {}})


def test_text_mode_is_compact_canonical_jsonl_with_warnings_on_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["docs", "openlineage", "--job-namespace", JOB_NS, "--project-dir", str(EXAMPLES / "payments-pipeline")]
    assert run(argv, out, err) == 0
    lines = out.getvalue().splitlines()
    events = [json.loads(line) for line in lines]
    validate(events)
    assert all(
        line == json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        for line, e in zip(lines, events, strict=True)
    )
    assert out.getvalue().endswith("\n")
    assert "W111" in err.getvalue() and "W111" not in out.getvalue()


def test_bytes_are_identical_across_runs_and_hash_seeds(tmp_path: Path) -> None:
    outputs = set()
    for seed in ("0", "1", "4242"):
        target = tmp_path / f"lineage-{seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        code = (
            "import sys; from streamt.cli import run;"
            f"sys.exit(run(['docs','openlineage','--job-namespace','{JOB_NS}','--project-dir',"
            f"'{EXAMPLES / 'ownership-gateway'}','--output-file','{target}'], sys.stdout, sys.stderr))"
        )
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
        outputs.add(target.read_bytes())
    assert len(outputs) == 1 and next(iter(outputs))


def test_output_file_is_atomic_and_text_stdout_stays_empty(tmp_path: Path) -> None:
    target = tmp_path / "lineage.jsonl"
    target.write_text("previous")
    out = io.StringIO()
    argv = ["docs", "openlineage", "--job-namespace", JOB_NS, "--output-file", str(target)]
    assert run([*argv, "--project-dir", str(EXAMPLES / "minimal-topic")], out, io.StringIO()) == 0
    assert out.getvalue() == ""
    validate([json.loads(line) for line in target.read_text().splitlines()])
    assert [p.name for p in tmp_path.iterdir()] == ["lineage.jsonl"]


def test_unwritable_output_file_is_e506_and_nothing_is_printed(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x")
    target = tmp_path / "a-file" / "lineage.jsonl"  # its parent is not a directory
    out = io.StringIO()
    argv = ["docs", "openlineage", "--job-namespace", JOB_NS, "--output-file", str(target)]
    assert run([*argv, "--project-dir", str(EXAMPLES / "minimal-topic")], out, io.StringIO()) == 1
    assert out.getvalue() == "" and not target.exists()
    outcome = docs("--output-file", target, "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.error_codes == ["E506_OPENLINEAGE_INVALID"] and outcome.data == {}


def test_job_namespace_falls_back_to_the_environment_and_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENLINEAGE_NAMESPACE", raising=False)
    missing = run_cli("docs", "openlineage", "--project-dir", EXAMPLES / "minimal-topic")
    assert missing.exit_code == 1 and missing.error_codes == ["E506_OPENLINEAGE_INVALID"]
    assert missing.envelope["errors"][0]["suggestion"]
    monkeypatch.setenv("OPENLINEAGE_NAMESPACE", "env-namespace")
    monkeypatch.setenv("STREAMT_OPENLINEAGE_KAFKA_NAMESPACE", "kafka://catalog-kafka.example:9092")
    outcome = run_cli("docs", "openlineage", "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.ok
    assert {e["dataset"]["namespace"] for e in outcome.data["events"]} == {"kafka://catalog-kafka.example:9092"}
    assert outcome.data["namespaces"]["job"] == "env-namespace"


@pytest.mark.parametrize(
    "args",
    [
        ("--kafka-namespace", "http://broker:9092"),
        ("--kafka-namespace", "kafka://user:pw@broker:9092"),
        ("--kafka-namespace", "kafka://broker:99999"),
        ("--gateway-namespace", "kafka://gw"),
        ("--job-namespace", "https://user:secret@lineage.example/ns"),
        ("--job-namespace", "has space"),
    ],
)
def test_invalid_namespaces_are_e506_without_output(args: tuple[str, str]) -> None:
    outcome = run_cli(
        "docs", "openlineage", "--job-namespace", JOB_NS, *args, "--project-dir", EXAMPLES / "minimal-topic"
    )
    assert outcome.exit_code == 1 and outcome.error_codes == ["E506_OPENLINEAGE_INVALID"]
    assert outcome.data == {} and "secret" not in outcome.stdout.replace("secret@", "")


def _project(streamt_project: Any, bootstrap: str, **kafka: Any) -> Path:
    return streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": bootstrap, **kafka}},
                "models": [{"name": "orders", "topic": {"name": "orders-v1"}}],
            }
        }
    )


def test_several_bootstrap_servers_need_an_explicit_namespace(streamt_project: Any) -> None:
    project = _project(streamt_project, "b1:9092,b2:9092")
    outcome = docs("--project-dir", project)
    assert outcome.error_codes == ["E506_OPENLINEAGE_INVALID"]
    assert "2 bootstrap servers" in outcome.envelope["errors"][0]["message"]
    explicit = docs("--project-dir", project, "--kafka-namespace", "kafka://b1:9092")
    assert explicit.ok and explicit.data["events"][0]["dataset"]["namespace"] == "kafka://b1:9092"
    assert derive_kafka_uri("Broker.Example:09092") == ("kafka://broker.example:9092", None)
    assert derive_kafka_uri("SASL_SSL://b:9092")[0] is None


def test_secrets_never_reach_events(streamt_project: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OL_TEST_PASSWORD", SENTINEL)
    monkeypatch.setenv("WAREHOUSE_PASSWORD", SENTINEL)
    project = _project(streamt_project, "kafka.example:9093", sasl_username="app", sasl_password="${OL_TEST_PASSWORD}")
    for directory in (project, EXAMPLES / "payments-pipeline"):
        outcome = docs("--project-dir", directory)
        assert outcome.ok, outcome.envelope
        assert SENTINEL not in outcome.stdout and SENTINEL not in outcome.stderr
        out, err = io.StringIO(), io.StringIO()
        run(["docs", "openlineage", "--job-namespace", JOB_NS, "--project-dir", str(directory)], out, err)
        assert SENTINEL not in out.getvalue() + err.getvalue()
