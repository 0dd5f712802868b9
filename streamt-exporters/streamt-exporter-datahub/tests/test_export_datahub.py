"""`docs datahub` output checked with the exact DataHub 1.7.0 SDK (acryl-datahub, a test-only dependency).

Every proposal must load through ``MetadataChangeProposalWrapper.from_obj``, pass ``validate()`` and serialise
back to exactly the same simplified JSON: an unknown or misspelt field is dropped by the SDK's Avro classes, so
the round trip fails on it. The written file must also load through DataHub's metadata-file reader.
"""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.ingestion.source.file import read_metadata_file
from shared_material import SHARED
from streamt.cli import run
from streamt_testing import CliOutcome, run_cli

EXAMPLES = SHARED / "spec" / "examples"
GATEWAY = ("--gateway-platform-id", "conduktor-gateway", "--gateway-platform-instance", "gateway-prod")
ALL_EXAMPLES = [
    ("minimal-topic", ()),
    ("payments-pipeline", ()),
    ("multi-env", ("--env", "dev")),
    ("ownership-gateway", GATEWAY),
    ("kafka-streams", ()),
]
SENTINEL = "s3ntinel-DH-91f0"


def validate(proposals: list[dict[str, Any]]) -> None:
    for proposal in proposals:
        wrapper = MetadataChangeProposalWrapper.from_obj(copy.deepcopy(proposal))  # from_obj mutates its input
        assert isinstance(wrapper, MetadataChangeProposalWrapper) and wrapper.validate(), proposal
        assert wrapper.to_obj(simplified_structure=True) == proposal


def docs(*args: str | Path) -> CliOutcome:
    return run_cli("docs", "datahub", "--catalog-id", "payments-prod", "--fabric", "PROD", *args)


@pytest.mark.parametrize(("example", "extra"), ALL_EXAMPLES)
def test_every_example_exports_proposals_the_datahub_sdk_accepts(example: str, extra: tuple[str, ...]) -> None:
    outcome = docs("--project-dir", EXAMPLES / example, *extra)
    assert outcome.ok, outcome.envelope
    validate(outcome.data["proposals"])
    assert outcome.data["counts"]["entities"]["dataFlow"] == 1
    assert outcome.data["datahub_version"] == "1.7.0"


def test_a_wrong_field_fails_the_sdk_round_trip() -> None:
    proposals = docs("--project-dir", EXAMPLES / "payments-pipeline").data["proposals"]
    job_io = next(p for p in proposals if p["aspectName"] == "dataJobInputOutput")
    wrong = {**job_io, "aspect": {"json": {**job_io["aspect"]["json"], "inputDataset": []}}}
    with pytest.raises(AssertionError):  # the SDK drops the unknown field, so the round trip differs
        validate([wrong])
    misspelt = {**job_io, "aspectName": "dataJobInputOutputs"}
    with pytest.raises(Exception):  # noqa: B017 - the SDK raises its own error types
        validate([misspelt])


def test_payments_lineage_uses_native_kafka_urns_and_direct_datasets() -> None:
    outcome = docs("--project-dir", EXAMPLES / "payments-pipeline", "--kafka-platform-instance", "kafka-main")
    proposals = outcome.data["proposals"]
    flow = "urn:li:dataFlow:(streamt,payments-prod,PROD)"

    def ds(topic: str) -> str:
        return f"urn:li:dataset:(urn:li:dataPlatform:kafka,kafka-main.{topic},PROD)"

    io_of = {p["entityUrn"]: p["aspect"]["json"] for p in proposals if p["aspectName"] == "dataJobInputOutput"}
    assert io_of[f"urn:li:dataJob:({flow},payments_clean)"] == {
        "inputDatasets": [ds("payments.card-events.v1")],
        "outputDatasets": [ds("payments.clean.v1")],
    }
    assert io_of[f"urn:li:dataJob:({flow},payments_to_warehouse)"] == {
        "inputDatasets": [ds("payments.clean.v1")],
        "outputDatasets": [],
    }
    # a test job is not a process of the data flow
    assert not any("merchant_totals_monitor" in urn for urn in io_of)
    props = {p["entityUrn"]: p["aspect"]["json"] for p in proposals if p["aspectName"] == "datasetProperties"}
    assert props[ds("payments.clean.v1")]["customProperties"]["streamt.contract.status"] == "declared"
    instances = [p for p in proposals if p["aspectName"] == "dataPlatformInstance"]
    assert instances and all(
        p["aspect"]["json"]["instance"] == "urn:li:dataPlatformInstance:(urn:li:dataPlatform:kafka,kafka-main)"
        for p in instances
    )
    codes = outcome.warning_codes
    assert codes.count("W115_DATAHUB_SINK_OUTPUT_OMITTED") == 1
    assert codes.count("W116_DATAHUB_EXPOSURE_OMITTED") == 3
    assert codes.count("W118_DATAHUB_OWNER_OMITTED") == 4


def test_tags_are_reported_as_deferred(streamt_project: Any) -> None:
    project = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
                "models": [{"name": "orders", "tags": ["pii"], "topic": {"name": "orders-v1"}}],
            }
        }
    )
    outcome = docs("--project-dir", project)
    assert outcome.ok and outcome.warning_codes == ["W117_DATAHUB_TAGS_OMITTED"]
    assert "urn:li:dataset:(urn:li:dataPlatform:kafka,orders-v1,PROD)" in outcome.stdout


def test_gateway_datasets_need_an_explicit_platform_and_instance(tmp_path: Path) -> None:
    target = tmp_path / "mcps.json"
    missing = docs("--project-dir", EXAMPLES / "ownership-gateway", "--output-file", target)
    assert missing.exit_code == 1 and set(missing.error_codes) == {"E508_DATAHUB_INVALID"}
    assert missing.data == {} and not target.exists()
    half = docs("--project-dir", EXAMPLES / "ownership-gateway", "--gateway-platform-id", "conduktor-gateway")
    assert half.error_codes == ["E508_DATAHUB_INVALID"]
    ok = docs("--project-dir", EXAMPLES / "ownership-gateway", *GATEWAY)
    urns = {p["entityUrn"] for p in ok.data["proposals"]}
    assert "urn:li:dataset:(urn:li:dataPlatform:conduktor-gateway,gateway-prod.crm.customers.gold,PROD)" in urns


@pytest.mark.parametrize(
    "args",
    [
        ("--catalog-id", "pay,ments", "--fabric", "PROD"),
        ("--catalog-id", "payments", "--fabric", "prod"),
        ("--catalog-id", "payments", "--fabric", "PRODUCTION"),
        ("--catalog-id", "payments", "--fabric", "PROD", "--kafka-platform-instance", "a b"),
        ("--catalog-id", "payments", "--fabric", "PROD", "--gateway-platform-id", "urn:li:dataPlatform:x",
         "--gateway-platform-instance", "g"),
    ],
)  # fmt: skip
def test_invalid_identity_is_e508(args: tuple[str, ...]) -> None:
    outcome = run_cli("docs", "datahub", *args, "--project-dir", EXAMPLES / "minimal-topic")
    assert outcome.exit_code == 1 and outcome.error_codes == ["E508_DATAHUB_INVALID"]
    assert all(e["suggestion"] for e in outcome.envelope["errors"])


def test_text_output_file_and_metadata_file_reader(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "docs",
        "datahub",
        "--catalog-id",
        "c",
        "--fabric",
        "DEV",
        "--project-dir",
        str(EXAMPLES / "payments-pipeline"),
    ]
    assert run(argv, out, err) == 0
    proposals = json.loads(out.getvalue())
    validate(proposals)
    assert "W115" in err.getvalue() and "W115" not in out.getvalue()
    target = tmp_path / "mcps.json"
    target.write_text("previous")
    file_out = io.StringIO()
    assert run([*argv, "--output-file", str(target)], file_out, io.StringIO()) == 0
    assert file_out.getvalue() == "" and target.read_text() == out.getvalue()
    assert [p.name for p in tmp_path.iterdir()] == ["mcps.json"]
    read = list(read_metadata_file(target))
    assert len(read) == len(proposals)
    (tmp_path / "a-file").write_text("x")
    failed = run_cli(*argv, "--output-file", tmp_path / "a-file" / "mcps.json")
    assert failed.error_codes == ["E508_DATAHUB_INVALID"] and failed.data == {}


def test_quiet_suppresses_the_document_and_warning_text_but_not_the_file_json_or_errors(tmp_path: Path) -> None:
    argv = ["docs", "datahub", "--catalog-id", "c", "--fabric", "DEV", "--quiet"]
    argv += ["--project-dir", str(EXAMPLES / "payments-pipeline")]
    out, err = io.StringIO(), io.StringIO()
    assert run(argv, out, err) == 0
    assert out.getvalue() == "" and err.getvalue() == ""
    target = tmp_path / "mcps.json"
    assert run([*argv, "--output-file", str(target)], io.StringIO(), io.StringIO()) == 0
    validate(json.loads(target.read_text()))
    machine = run_cli(*argv)  # -o json keeps its whole envelope, warnings included
    assert machine.ok and machine.data["proposals"] and "W115_DATAHUB_SINK_OUTPUT_OMITTED" in machine.warning_codes
    err = io.StringIO()
    assert run([*argv, "--fabric", "prod"], io.StringIO(), err) == 1
    assert "E508_DATAHUB_INVALID" in err.getvalue()


def test_bytes_are_identical_across_runs_and_hash_seeds(tmp_path: Path) -> None:
    outputs = set()
    for seed in ("0", "1", "4242"):
        target = tmp_path / f"mcps-{seed}.json"
        code = (
            "import sys; from streamt.cli import run;"
            "sys.exit(run(['docs','datahub','--catalog-id','c','--fabric','PROD',"
            "'--gateway-platform-id','gw','--gateway-platform-instance','g',"
            f"'--project-dir','{EXAMPLES / 'ownership-gateway'}','--output-file','{target}'], sys.stdout, sys.stderr))"
        )
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
        outputs.add(target.read_bytes())
    assert len(outputs) == 1 and next(iter(outputs))


def test_secrets_never_reach_proposals(streamt_project: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DH_TEST_PASSWORD", SENTINEL)
    monkeypatch.setenv("WAREHOUSE_PASSWORD", SENTINEL)
    monkeypatch.setenv("WAREHOUSE_JDBC_URL", f"jdbc:postgresql://u:{SENTINEL}@db/x")
    project = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "k:9092", "sasl_password": "${DH_TEST_PASSWORD}"}},
                "models": [{"name": "orders", "topic": {"name": "orders-v1"}}],
            }
        }
    )
    for directory in (project, EXAMPLES / "payments-pipeline"):
        outcome = docs("--project-dir", directory)
        assert outcome.ok and SENTINEL not in outcome.stdout + outcome.stderr
