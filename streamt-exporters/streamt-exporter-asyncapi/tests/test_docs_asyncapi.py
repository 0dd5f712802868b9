"""`docs asyncapi` / `docs openapi` output checked against the official AsyncAPI 3.1.0 JSON Schema.

The schema is test data in ``shared/schemas/asyncapi/`` (never shipped); the product checks
its documents with its own hand-written rules (``checks.py``) before printing anything.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from shared_material import SHARED
from streamt.cli import run
from streamt.project import load_project
from streamt.sdk import Physical
from streamt_exporter_asyncapi.checks import document_problems
from streamt_exporter_asyncapi.mapping import build_document
from streamt_testing import CliOutcome, run_cli

SCHEMA = SHARED / "schemas" / "asyncapi" / "schemas" / "3.1.0-without-$id.json"
EXAMPLES = SHARED / "spec" / "examples"
COMPAT = SHARED / "compat" / "upstream-projects"
KAFKA = {"kafka": {"bootstrap_servers": "k:9092"}}


def validator() -> jsonschema.Draft7Validator:
    assert SCHEMA.is_file(), f"the official AsyncAPI schema is expected at {SCHEMA}"
    return jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))


def validate(document: dict[str, Any]) -> None:
    errors = sorted(validator().iter_errors(document), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    assert document_problems(document) == []


def asyncapi(*args: str | Path, command: str = "asyncapi") -> CliOutcome:
    return run_cli("docs", command, *args)


def project(models: list[Any] | None = None, sources: list[Any] | None = None) -> dict[str, Any]:
    body = {"project": {"name": "p", "version": "1.0.0"}, "runtime": KAFKA}
    return {"stream_project.yml": {**body, "sources": sources or [], "models": models or []}}


def test_the_official_schema_and_our_checks_reject_a_wrong_field() -> None:
    document = {"asyncapi": "3.1.0", "info": {"title": "t", "version": "1"}, "channels": {"c": {"address": "a"}}}
    validate(document)
    wrong = {**document, "channels": {"c": {"address": "a", "bindings": {"kafka": {"replicationFactor": 3}}}}}
    assert not validator().is_valid(wrong)
    assert any("'replicationFactor' is not an AsyncAPI field" in p for p in document_problems(wrong))
    bad_action = {**document, "operations": {"o": {"action": "publish", "channel": {"$ref": "#/channels/c"}}}}
    assert not validator().is_valid(bad_action) and document_problems(bad_action)


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
def test_every_example_exports_a_valid_document(example: str, extra: list[str]) -> None:
    outcome = asyncapi("--project-dir", EXAMPLES / example, *extra)
    assert outcome.ok, outcome.envelope
    document = outcome.data["document"]
    validate(document)
    assert outcome.data["counts"]["channels"] == len(document["channels"]) == len(document["operations"])
    for key, channel in document["channels"].items():
        assert key.startswith(("source_", "model_"))
        assert "servers" not in channel
    assert "servers" not in document and "defaultContentType" not in document


@pytest.mark.parametrize(
    "name",
    [
        "fixture-complete_project",
        "example-payments",
        "docs-guide_cdc_pipelines",
        "scen-ecommerce_domain--full_order_pipeline",
    ],
)
def test_compat_projects_export_valid_documents(name: str) -> None:
    outcome = asyncapi("--project-dir", COMPAT / name)
    assert outcome.ok, outcome.envelope
    validate(outcome.data["document"])


def test_payments_ids_payloads_and_bindings() -> None:
    document = asyncapi("--project-dir", EXAMPLES / "payments-pipeline").data["document"]
    assert list(document["channels"]) == ["source_card_events", "model_merchant_totals_1m", "model_payments_clean"]
    assert list(document["operations"]) == [
        "receive_source_card_events",
        "send_model_merchant_totals_1m",
        "send_model_payments_clean",
    ]
    assert document["channels"]["source_card_events"]["address"] == "payments.card-events.v1"
    # only the explicitly declared partitions; replicas come from defaults and are not claimed
    assert document["channels"]["model_payments_clean"]["bindings"] == {
        "kafka": {"partitions": 12, "bindingVersion": "0.5.0"}
    }
    assert "bindings" not in document["channels"]["source_card_events"]
    schemas = document["components"]["schemas"]
    assert set(schemas) == {"source_card_events.payload", "model_payments_clean.payload"}  # no invented payloads
    assert "payload" not in document["components"]["messages"]["model_merchant_totals_1m.message"]
    clean = schemas["model_payments_clean.payload"]
    assert clean["properties"]["payment_id"]["type"] == "string" and clean["required"] == ["payment_id"]
    assert clean["properties"]["amount_cents"]["type"] == ["integer", "null"]
    source = schemas["source_card_events.payload"]
    assert source["properties"]["event_time"] == {"type": ["string", "null"], "x-flink-type": "TIMESTAMP(3)"}
    text = json.dumps(document)
    for absent in ("payments_to_warehouse", "SELECT", "jdbc", "servers", "security", "contentType"):
        assert absent not in text


def test_flink_types_map_to_json_schema(streamt_project: Any) -> None:
    columns = [
        {"name": "v", "type": "VARCHAR(8) NOT NULL"},
        {"name": "i", "type": "TINYINT", "required": True},
        {"name": "b", "type": "BYTES"},
        {"name": "d", "type": "DATE"},
        {"name": "tags", "type": "ARRAY<STRING NOT NULL>"},
        {"name": "attrs", "type": "MAP<STRING, DOUBLE>"},
        {"name": "addr", "type": "ROW<city STRING NOT NULL 'City', zip INT>"},
        {"name": "free", "description": "no type declared"},
    ]
    files = project(sources=[{"name": "s", "topic": "s.v1", "columns": columns}])
    outcome = asyncapi("--project-dir", streamt_project(files))
    assert outcome.ok, outcome.envelope
    validate(outcome.data["document"])
    props = outcome.data["document"]["components"]["schemas"]["source_s.payload"]["properties"]
    assert props["v"] == {"type": "string", "maxLength": 8, "x-flink-type": "VARCHAR(8) NOT NULL"}
    assert props["i"]["type"] == "integer" and (props["i"]["minimum"], props["i"]["maximum"]) == (-128, 127)
    assert props["b"]["contentEncoding"] == "base64" and props["d"]["format"] == "date"
    assert props["tags"]["items"] == {"type": "string"}
    assert props["attrs"]["additionalProperties"] == {"type": ["number", "null"]}
    assert props["addr"]["required"] == ["city"] and props["addr"]["properties"]["city"]["description"] == "City"
    assert props["free"] == {"description": "no type declared"}


@pytest.mark.parametrize("bad_type", ["RAW(1)", "MULTISET<STRING>", "MAP<INT, STRING>", "BLOB"])
def test_malformed_or_unsupported_types_are_e504(streamt_project: Any, bad_type: str) -> None:
    files = project(sources=[{"name": "s", "topic": "t", "columns": [{"name": "x", "type": bad_type}]}])
    outcome = asyncapi("--project-dir", streamt_project(files))
    assert outcome.exit_code == 1 and outcome.error_codes == ["E504_ASYNCAPI_INVALID"]
    assert outcome.envelope["data"] == {} and outcome.envelope["errors"][0]["suggestion"]
    out, err = io.StringIO(), io.StringIO()
    assert run(["docs", "asyncapi", "--project-dir", str(streamt_project(files, name="again"))], out, err) == 1
    assert out.getvalue() == "" and "Traceback" not in err.getvalue()


def test_two_declarations_on_one_address_are_e504(streamt_project: Any) -> None:
    # validation already refuses two topics with one physical name (E111); the exporter fails closed on its own too
    outcome = asyncapi("--project-dir", streamt_project(project([{"name": "m", "topic": {"name": "shared.v1"}}])))
    loaded = load_project(streamt_project(project([{"name": "m", "topic": {"name": "shared.v1"}}]), name="p2"), None)
    twin = attrs.evolve(loaded.models[0], name="twin")
    shared = Physical("topic", "shared.v1", "shared.v1")
    mapped = build_document(attrs.evolve(loaded, models=(*loaded.models, twin)), {"m": shared, "twin": shared})
    assert outcome.ok and mapped.problems and "shared.v1" in mapped.problems[0]
    assert document_problems({**mapped.document}) != []  # the own checks also see the duplicate address


def test_openapi_alias_emits_the_same_bytes_with_a_deprecation_notice() -> None:
    argv = ["--project-dir", str(EXAMPLES / "minimal-topic")]
    outputs = {}
    for command in ("asyncapi", "openapi"):
        out, err = io.StringIO(), io.StringIO()
        assert run(["docs", command, *argv], out, err) == 0
        outputs[command] = (out.getvalue(), err.getvalue())
    assert outputs["asyncapi"][0] == outputs["openapi"][0]
    validate(json.loads(outputs["openapi"][0]))
    assert "deprecated" in outputs["openapi"][1] and "deprecated" not in outputs["asyncapi"][1]
    envelope = asyncapi(*argv, command="openapi").envelope
    assert envelope["command"] == "docs openapi" and envelope["warnings"][0]["replacement"] == "docs asyncapi"


@pytest.mark.parametrize("command", ["asyncapi", "openapi"])
def test_bytes_are_identical_across_runs_and_hash_seeds(command: str) -> None:
    argv = ["docs", command, "--project-dir", str(EXAMPLES / "payments-pipeline")]
    script = "import sys; from streamt.cli import run; sys.exit(run(sys.argv[1:], sys.stdout, sys.stderr))"
    outputs = set()
    for seed in ("0", "1", "999"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        outputs.add(
            subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, env=env, check=True).stdout
        )
    assert len(outputs) == 1 and outputs.pop().startswith(b"{")


def test_runtime_secrets_never_appear(streamt_project: Any) -> None:
    sentinel = "SENTINEL-asyncapi-41c9"
    files = project(sources=[{"name": "s", "topic": "t", "columns": [{"name": "x", "type": "STRING"}]}])
    files["stream_project.yml"]["runtime"] = {
        "kafka": {
            "bootstrap_servers": f"{sentinel}-broker:9092",
            "security_protocol": "SASL_SSL",
            "sasl_mechanism": "PLAIN",
            "sasl_username": f"{sentinel}-user",
            "sasl_password": f"{sentinel}-password",
        },
        "schema_registry": {"url": f"https://{sentinel}-registry", "username": sentinel, "password": sentinel},
    }
    root = streamt_project(files)
    outcome = asyncapi("--project-dir", root)
    assert outcome.ok, outcome.envelope
    out, err = io.StringIO(), io.StringIO()
    assert run(["docs", "asyncapi", "--project-dir", str(root)], out, err) == 0
    assert sentinel not in outcome.stdout + outcome.stderr + out.getvalue() + err.getvalue()
