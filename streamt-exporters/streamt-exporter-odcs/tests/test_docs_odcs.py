"""`docs odcs` output checked against the official ODCS v3.1.0 JSON Schema with jsonschema.

The schema is test data in ``shared/schemas/odcs/`` (never shipped); the product checks its
documents with its own hand-written rules (``checks.py``) before any output.
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
import yaml
from shared_material import SHARED
from streamt.cli import run
from streamt_exporter_odcs.checks import document_problems
from streamt_testing import CliOutcome, run_cli

SCHEMA = SHARED / "schemas" / "odcs" / "schema" / "odcs-json-schema-v3.1.0.json"
EXAMPLES = SHARED / "spec" / "examples"
COMPAT = SHARED / "compat" / "upstream-projects"
ID, STATUS = "urn:acme:data-contract:payments", "active"


def validator() -> Any:
    assert SCHEMA.is_file(), f"the official ODCS schema is expected at {SCHEMA}"
    schema = json.loads(SCHEMA.read_text())
    return jsonschema.validators.validator_for(schema)(schema)


def validate(document: dict[str, Any]) -> None:
    errors = sorted(validator().iter_errors(document), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    assert document_problems(document) == []


def odcs(*args: str | Path) -> CliOutcome:
    return run_cli("docs", "odcs", "--contract-id", ID, "--status", STATUS, *args)


def text_run(*args: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["docs", "odcs", "--contract-id", ID, "--status", STATUS, *map(str, args)], out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_official_schema_and_our_checks_reject_a_wrong_field() -> None:
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1", "status": "active"}
    validate(document)
    wrong = {**document, "schema": [{"name": "t", "logicalType": "object", "properties": [{"name": "c", "type": "x"}]}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, json.loads(SCHEMA.read_text()), cls=type(validator()))
    assert any("'type' is not an ODCS field" in p for p in document_problems(wrong))
    bad_enum = {
        **document,
        "schema": [{"name": "t", "logicalType": "object", "properties": [{"name": "c", "logicalType": "text"}]}],
    }
    assert not validator().is_valid(bad_enum) and document_problems(bad_enum)


@pytest.mark.parametrize(
    ("example", "extra"),
    [
        ("minimal-topic", []),
        ("payments-pipeline", []),
        ("multi-env", ["--env", "dev"]),
        ("ownership-gateway", []),
        ("kafka-streams", []),
    ],
)
def test_every_example_exports_a_valid_contract_with_each_declaration_once(example: str, extra: list[str]) -> None:
    outcome = odcs("--project-dir", EXAMPLES / example, *extra)
    assert outcome.ok, outcome.envelope
    document = outcome.data["document"]
    validate(document)
    assert (document["apiVersion"], document["kind"], document["id"], document["status"]) == (
        "v3.1.0",
        "DataContract",
        ID,
        STATUS,
    )
    names = [o["name"] for o in document["schema"]]
    assert len(names) == len(set(names)) and len(names) == outcome.data["counts"]["schema_objects"]
    incomplete = [w["name"] for w in outcome.envelope["warnings"] if w["code"] == "W109_ODCS_SCHEMA_INCOMPLETE"]
    assert sorted(incomplete) == sorted(o["name"] for o in document["schema"] if "properties" not in o)


@pytest.mark.parametrize(
    "project",
    [
        "fixture-complete_project",
        "example-payments",
        "docs-guide_cdc_pipelines",
        "scen-ecommerce_domain--full_order_pipeline",
    ],
)
def test_compat_projects_export_valid_contracts(project: str) -> None:
    outcome = odcs("--project-dir", COMPAT / project)
    assert outcome.ok, outcome.envelope
    validate(outcome.data["document"])


def test_payments_mapping_version_contract_and_omissions() -> None:
    outcome = odcs("--project-dir", EXAMPLES / "payments-pipeline")
    document = outcome.data["document"]
    assert document["version"] == "2.3.0"  # project.version
    by_name = {o["name"]: o for o in document["schema"]}
    assert set(by_name) == {"card_events", "payments_clean", "merchant_totals_1m", "payments_to_warehouse"}
    source = by_name["card_events"]
    assert (source["physicalName"], source["physicalType"]) == ("payments.card-events.v1", "topic")
    columns = {p["name"]: p for p in source["properties"]}
    assert columns["payment_id"]["required"] is True and "required" not in columns["merchant_id"]
    assert columns["amount_cents"]["logicalType"] == "integer"
    assert columns["amount_cents"]["logicalTypeOptions"] == {"format": "i64"}
    assert columns["event_time"]["logicalType"] == "timestamp"
    assert columns["event_time"]["physicalType"] == "TIMESTAMP(3)"
    assert columns["card_pan"]["classification"] == "highly_sensitive"
    clean = by_name["payments_clean"]
    assert [p["name"] for p in clean["properties"]] == ["payment_id", "amount_cents"]
    assert {"property": "streamtContractStatus", "value": "declared"} in clean["customProperties"]
    assert "physicalName" not in by_name["payments_to_warehouse"]  # a sink has no topic of its own
    text = json.dumps(document)
    for absent in ("SELECT", "sla", "team", "servers", "WAREHOUSE", "jdbc", "roles", "quality"):
        assert absent not in text


def test_flink_types_map_to_logical_types(streamt_project: Any) -> None:
    types = {
        "s": "VARCHAR(12)",
        "c": "CHAR(2) NOT NULL",
        "b": "BOOLEAN",
        "i": "INT",
        "d": "DECIMAL(10, 2)",
        "f": "DOUBLE",
        "day": "DATE",
        "t": "TIME(3)",
        "ltz": "TIMESTAMP_LTZ(3)",
        "raw": "BYTES",
        "tags": "ARRAY<STRING NOT NULL>",
        "attrs": "MAP<STRING, STRING>",
        "addr": "ROW<city STRING 'City name', zip INT NOT NULL>",
        "untyped": None,
    }
    columns = [{"name": n, **({"type": t} if t else {})} for n, t in types.items()]
    files = {
        "stream_project.yml": {
            "project": {"name": "p", "version": "1.0.0"},
            "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
            "sources": [{"name": "src", "topic": "t.v1", "columns": columns}],
            "models": [{"name": "m", "columns": [{"name": "id", "type": "STRING"}], "primary_key": ["id"]}],
        }
    }
    outcome = odcs("--project-dir", streamt_project(files), "--contract-version", "9.9.9")
    assert outcome.ok, outcome.envelope
    document = outcome.data["document"]
    validate(document)
    assert document["version"] == "9.9.9"
    props = {p["name"]: p for p in document["schema"][0]["properties"]}
    logical = {n: p.get("logicalType") for n, p in props.items()}
    assert logical == {
        "s": "string", "c": "string", "b": "boolean", "i": "integer", "d": "number", "f": "number", "day": "date",
        "t": "time", "ltz": "timestamp", "raw": "string", "tags": "array", "attrs": "object", "addr": "object",
        "untyped": None,
    }  # fmt: skip
    assert props["s"]["logicalTypeOptions"] == {"maxLength": 12}
    assert props["c"]["required"] is True and props["c"]["logicalTypeOptions"] == {"maxLength": 2, "minLength": 2}
    assert props["ltz"]["logicalTypeOptions"] == {"timezone": True}
    assert props["tags"]["items"] == {"logicalType": "string", "required": True}
    assert props["addr"]["properties"] == [
        {"name": "city", "logicalType": "string", "description": "City name"},
        {"name": "zip", "logicalType": "integer", "logicalTypeOptions": {"format": "i32"}, "required": True},
    ]
    assert "physicalType" not in props["untyped"]
    model = document["schema"][1]
    assert model["properties"][0]["primaryKey"] is True and model["properties"][0]["primaryKeyPosition"] == 1


@pytest.mark.parametrize("bad_type", ["RAW(1)", "INTERVAL DAY", "VARCHAR(0)", "GEOMETRY"])
def test_malformed_or_unsupported_types_are_e505_and_nothing_is_written(
    streamt_project: Any, tmp_path: Path, bad_type: str
) -> None:
    files = {
        "stream_project.yml": {
            "project": {"name": "p", "version": "1.0.0"},
            "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
            "sources": [{"name": "src", "topic": "t", "columns": [{"name": "x", "type": bad_type}]}],
        }
    }
    target = tmp_path / "out" / "contract.yaml"
    outcome = odcs("--project-dir", streamt_project(files), "--output-file", target)
    assert outcome.exit_code == 1 and outcome.error_codes == ["E505_ODCS_INVALID"]
    assert outcome.envelope["data"] == {} and outcome.envelope["errors"][0]["suggestion"]
    assert not target.exists()


@pytest.mark.parametrize("missing", ["--contract-id", "--status"])
def test_contract_id_and_status_have_no_defaults(missing: str) -> None:
    values = {"--contract-id": ID, "--status": STATUS}
    del values[missing]
    args = [item for pair in values.items() for item in pair]
    outcome = run_cli("docs", "odcs", *args, "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.exit_code == 1 and outcome.error_codes == ["E900_USAGE_ERROR"]


@pytest.mark.parametrize(("option", "value"), [("--contract-id", " "), ("--status", ""), ("--contract-version", "\t")])
def test_blank_metadata_is_e505(option: str, value: str) -> None:
    values = {"--contract-id": ID, "--status": STATUS, option: value}
    args = [item for pair in values.items() for item in pair]
    outcome = run_cli("docs", "odcs", *args, "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.error_codes == ["E505_ODCS_INVALID"]


def test_text_mode_prints_one_raw_document_and_warnings_on_stderr() -> None:
    code, out, err = text_run("--project-dir", EXAMPLES / "minimal-topic")
    assert code == 0 and "W109_ODCS_SCHEMA_INCOMPLETE" in err and "W109" not in out
    document = yaml.safe_load(out)
    validate(document)
    assert document == odcs("--project-dir", EXAMPLES / "minimal-topic").data["document"]
    code, out_json, _ = text_run("--format", "json", "--project-dir", EXAMPLES / "minimal-topic")
    assert code == 0 and json.loads(out_json) == document


def test_json_envelope_keeps_the_document_whatever_the_raw_format() -> None:
    outcome = odcs("--format", "yaml", "--project-dir", EXAMPLES / "kafka-streams")
    assert outcome.ok and outcome.data["format"] == "yaml" and isinstance(outcome.data["document"], dict)
    assert outcome.stdout.count('"status"') >= 1 and json.loads(outcome.stdout) == outcome.envelope


def test_output_file_is_replaced_atomically_and_stdout_stays_empty(tmp_path: Path) -> None:
    target = tmp_path / "payments.odcs.json"
    target.write_text("previous")
    code, out, _ = text_run(
        "--format", "json", "--output-file", target, "--project-dir", EXAMPLES / "payments-pipeline"
    )
    assert code == 0 and out == ""
    validate(json.loads(target.read_text()))
    assert [p.name for p in tmp_path.iterdir()] == ["payments.odcs.json"]


def test_output_file_failure_is_e505(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    outcome = odcs("--output-file", blocker / "contract.yaml", "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.error_codes == ["E505_ODCS_INVALID"] and blocker.read_text() == "x"


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_bytes_are_identical_across_runs_and_hash_seeds(fmt: str) -> None:
    argv = ["docs", "odcs", "--contract-id", ID, "--status", STATUS, "--format", fmt]
    argv += ["--project-dir", str(EXAMPLES / "payments-pipeline")]
    outputs = set()
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        script = "import sys; from streamt.cli import run; sys.exit(run(sys.argv[1:], sys.stdout, sys.stderr))"
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, env=env, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1 and outputs.pop()


def test_runtime_secrets_never_appear(streamt_project: Any) -> None:
    sentinel = "SENTINEL-odcs-7f3a"
    files = {
        "stream_project.yml": {
            "project": {"name": "p", "version": "1.0.0"},
            "runtime": {
                "kafka": {
                    "bootstrap_servers": f"{sentinel}-broker:9092",
                    "security_protocol": "SASL_SSL",
                    "sasl_mechanism": "PLAIN",
                    "sasl_username": f"{sentinel}-user",
                    "sasl_password": f"{sentinel}-password",
                },
                "schema_registry": {"url": f"https://{sentinel}-registry", "username": sentinel, "password": sentinel},
            },
            "sources": [{"name": "src", "topic": "t", "columns": [{"name": "x", "type": "STRING"}]}],
        }
    }
    root = streamt_project(files)
    outcome = odcs("--project-dir", root)
    assert outcome.ok, outcome.envelope
    code, out, err = text_run("--project-dir", root)
    assert code == 0
    assert sentinel not in outcome.stdout + outcome.stderr + out + err
