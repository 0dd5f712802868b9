"""`docs backstage` output checked entity by entity against the official Backstage catalog-model schemas.

The schemas (draft-07, bare ``$id`` refs, @backstage/catalog-model 1.10.3) live in the shared checkout next to
the repository and are used by the tests only; the product carries its own closed structural check.
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
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7
from shared_material import SHARED
from streamt.cli import run
from streamt_testing import CliOutcome, run_cli

EXAMPLES = SHARED / "spec" / "examples"
SCHEMAS = SHARED / "schemas" / "backstage" / "packages" / "catalog-model" / "src" / "schema"
KAFKA = ("--kafka-cluster-ref", "resource:platform/kafka-prod")
GATEWAY = ("--gateway-cluster-ref", "resource:platform/gateway-prod")
REQUIRED = (
    "--catalog-id", "payments-prod", "--catalog-namespace", "payments",
    "--default-owner-ref", "group:platform/payments", "--lifecycle", "production",
)  # fmt: skip
ALL_EXAMPLES = [
    ("minimal-topic", KAFKA, {"System": 1, "Component": 0, "Resource": 3}),
    # Resources: three topics and the failures topic its continuous test declares.
    ("payments-pipeline", KAFKA, {"System": 1, "Component": 3, "Resource": 4}),
    ("multi-env", (*KAFKA, "--env", "dev"), {"System": 1, "Component": 2, "Resource": 3}),
    ("ownership-gateway", (*KAFKA, *GATEWAY), {"System": 1, "Component": 3, "Resource": 4}),
    ("kafka-streams", KAFKA, {"System": 1, "Component": 1, "Resource": 2}),
]
SENTINEL = "s3ntinel-BS-7c21"


def _registry() -> Registry:
    registry: Registry = Registry()
    for path in sorted(SCHEMAS.rglob("*.schema.json")):
        contents = json.loads(path.read_text(encoding="utf-8"))
        registry = registry.with_resource(
            contents["$id"], Resource.from_contents(contents, default_specification=DRAFT7)
        )
    return registry


REGISTRY = _registry()


def validate(entity: dict[str, Any]) -> None:
    """Raise unless the entity is valid for its kind's official schema (and the generic Entity schema)."""
    kind = {"System": "SystemV1alpha1", "Component": "ComponentV1alpha1", "Resource": "ResourceV1alpha1"}
    schema_id = kind.get(entity.get("kind"), "UnknownKind")  # type: ignore[arg-type]
    for ref in ("Entity", schema_id):
        jsonschema.Draft7Validator({"$ref": ref}, registry=REGISTRY).validate(entity)


def docs(*args: str | Path) -> CliOutcome:
    return run_cli("docs", "backstage", *REQUIRED, *args)


def by_name(entities: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {e["metadata"]["name"]: e for e in entities if e["kind"] == kind}


@pytest.mark.parametrize(("example", "extra", "counts"), ALL_EXAMPLES)
def test_every_example_exports_entities_valid_for_their_kind_schema(
    example: str, extra: tuple[str, ...], counts: dict[str, int]
) -> None:
    outcome = docs("--project-dir", EXAMPLES / example, *extra)
    assert outcome.ok, outcome.envelope
    entities = outcome.data["entities"]
    for entity in entities:
        validate(entity)
    assert outcome.data["counts"] == {**counts, "total": sum(counts.values())}
    assert outcome.data["api_version"] == "backstage.io/v1alpha1" and outcome.data["output_file"] is None
    system = entities[0]
    assert system["kind"] == "System" and system["metadata"]["name"] == "payments-prod"
    assert all(e["metadata"]["namespace"] == "payments" for e in entities)
    assert all(e["spec"]["system"] == "system:payments/payments-prod" for e in entities[1:])


def test_a_wrong_field_fails_the_official_schema() -> None:
    entities = docs("--project-dir", EXAMPLES / "payments-pipeline", *KAFKA).data["entities"]
    component = next(e for e in entities if e["kind"] == "Component")
    validate(component)
    no_owner = {**component, "spec": {k: v for k, v in component["spec"].items() if k != "owner"}}
    bad_lifecycle = {**component, "spec": {**component["spec"], "lifecycle": 1}}
    stray_top_level = {**component, "relations_": []}
    empty_dep = {**component, "spec": {**component["spec"], "dependsOn": [""]}}
    for wrong in (no_owner, bad_lifecycle, stray_top_level, empty_dep):
        with pytest.raises(jsonschema.ValidationError):
            validate(wrong)
    with pytest.raises(jsonschema.ValidationError):
        validate({**component, "apiVersion": "backstage.io/v2"})


def test_payments_mapping_relations_and_warnings() -> None:
    outcome = docs("--project-dir", EXAMPLES / "payments-pipeline", *KAFKA, "--domain-ref", "domain:default/payments")
    entities = outcome.data["entities"]
    components, resources = by_name(entities, "Component"), by_name(entities, "Resource")
    assert entities[0]["spec"] == {
        "domain": "domain:default/payments",
        "owner": "group:platform/payments",
        "type": "streaming-pipeline",
    }
    assert {n: c["spec"]["type"] for n, c in components.items()} == {
        "merchant_totals_1m": "flink-job",
        "payments_clean": "flink-job",
        "payments_to_warehouse": "kafka-connect-sink",
    }
    assert components["payments_clean"]["spec"]["dependsOn"] == ["resource:payments/payments.card-events.v1"]
    assert components["payments_to_warehouse"]["spec"]["dependsOn"] == ["resource:payments/payments.clean.v1"]
    assert resources["payments.clean.v1"]["spec"]["dependsOn"] == [
        "component:payments/payments_clean",
        "resource:platform/kafka-prod",
    ]
    assert resources["payments.card-events.v1"]["metadata"]["annotations"]["streamt.dev/ownership"] == "external"
    assert "test_merchant_totals_monitor" not in components and "merchant_totals_monitor" not in components
    assert all(c["spec"]["lifecycle"] == "production" for c in components.values())
    codes = outcome.warning_codes
    assert codes.count("W113_BACKSTAGE_SINK_OUTPUT_OMITTED") == 1
    assert codes.count("W114_BACKSTAGE_EXPOSURE_OMITTED") == 3


def test_gateway_virtual_topics_are_resources_on_the_gateway(tmp_path: Path) -> None:
    target = tmp_path / "catalog-info.yaml"
    missing = docs("--project-dir", EXAMPLES / "ownership-gateway", *KAFKA, "--output-file", target)
    assert missing.exit_code == 1 and set(missing.error_codes) == {"E507_BACKSTAGE_INVALID"}
    assert missing.data == {} and not target.exists()
    resources = by_name(
        docs("--project-dir", EXAMPLES / "ownership-gateway", *KAFKA, *GATEWAY).data["entities"], "Resource"
    )
    gold = resources["crm.customers.gold"]
    assert gold["spec"]["type"] == "gateway-virtual-topic"
    assert gold["spec"]["dependsOn"] == [
        "component:payments/customers_gold_view",
        "resource:payments/crm.customers.cdc.v3",
        "resource:platform/gateway-prod",
    ]


def test_kafka_resources_need_the_cluster_ref() -> None:
    outcome = docs("--project-dir", EXAMPLES / "kafka-streams")
    assert outcome.exit_code == 1 and set(outcome.error_codes) == {"E507_BACKSTAGE_INVALID"}
    assert all("--kafka-cluster-ref" in e["suggestion"] for e in outcome.envelope["errors"])


def _owner_map(tmp_path: Path, content: Any) -> Path:
    path = tmp_path / "owners.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_owner_map_maps_declared_labels(tmp_path: Path) -> None:
    owners = {
        "team-payments": "group:payments/team-payments",
        "team-risk": "group:risk/team-risk",
        "team-data-platform": "user:default/jane.doe",
        "unused-label": "group:default/other",
    }
    path = _owner_map(tmp_path, {"version": 1, "owners": owners})
    outcome = docs("--project-dir", EXAMPLES / "payments-pipeline", *KAFKA, "--owner-map", path)
    assert outcome.ok, outcome.envelope
    entities = outcome.data["entities"]
    for entity in entities:
        validate(entity)
    components, resources = by_name(entities, "Component"), by_name(entities, "Resource")
    assert components["payments_clean"]["spec"]["owner"] == "group:payments/team-payments"
    assert components["merchant_totals_1m"]["spec"]["owner"] == "group:risk/team-risk"
    assert resources["payments.card-events.v1"]["spec"]["owner"] == "group:payments/team-payments"
    assert entities[0]["spec"]["owner"] == "group:platform/payments"  # the System keeps the default owner


@pytest.mark.parametrize(
    "content",
    [
        {"version": 2, "owners": {}},
        {"version": "1", "owners": {}},
        {"version": True, "owners": {}},
        {"version": 1, "owners": {}, "extra": 1},
        {"version": 1},
        {"version": 1, "owners": []},
        {"version": 1, "owners": {"team-payments": "team-payments"}},
        {"version": 1, "owners": {"team-payments": "component:default/x"}},
        {"version": 1, "owners": {"team-payments": "group:Platform/x"}},
        {"version": 1, "owners": {"team-payments": "group:default/bad--name"}},
        {"version": 1, "owners": {"team-payments": "group:default/x"}},  # team-risk etc. are unmapped
        [1],
        "{not json",
    ],
)
def test_invalid_owner_map_is_e507_and_writes_nothing(tmp_path: Path, content: Any) -> None:
    target = tmp_path / "catalog-info.yaml"
    path = _owner_map(tmp_path, content)
    outcome = docs(
        "--project-dir", EXAMPLES / "payments-pipeline", *KAFKA, "--owner-map", path, "--output-file", target
    )
    assert outcome.exit_code == 1 and set(outcome.error_codes) == {"E507_BACKSTAGE_INVALID"}, outcome.envelope
    assert outcome.data == {} and not target.exists()
    assert all(e["suggestion"] for e in outcome.envelope["errors"])


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--catalog-id", "payments prod"),
        ("--catalog-id", "-payments"),
        ("--catalog-id", "p" * 64),
        ("--catalog-namespace", "Payments"),
        ("--catalog-namespace", "pay_ments"),
        ("--default-owner-ref", "platform/payments"),
        ("--default-owner-ref", "resource:platform/payments"),
        ("--lifecycle", ""),
        ("--lifecycle", "in production"),
        ("--kafka-cluster-ref", "kafka-prod"),
        ("--kafka-cluster-ref", "group:platform/kafka-prod"),
        ("--domain-ref", "system:default/payments"),
    ],
)
def test_invalid_catalog_options_are_e507(option: str, value: str) -> None:
    args = dict(zip(REQUIRED[::2], REQUIRED[1::2], strict=True))
    args |= {"--kafka-cluster-ref": "resource:platform/kafka-prod", option: value}
    outcome = run_cli(
        "docs", "backstage", *[x for kv in args.items() for x in kv], "--project-dir", EXAMPLES / "minimal-topic"
    )
    assert outcome.exit_code == 1 and outcome.error_codes == ["E507_BACKSTAGE_INVALID"], outcome.envelope
    assert option in outcome.envelope["errors"][0]["message"]


def _project(streamt_project: Any, topics: list[str]) -> Path:
    models = [{"name": f"m{i}", "topic": {"name": topic}} for i, topic in enumerate(topics)]
    return streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
                "models": models,
            }
        }
    )


def test_names_are_sanitized_deterministically_and_collisions_fail(streamt_project: Any) -> None:
    long = "orders." + "x" * 80 + ".v1"
    ok = docs("--project-dir", _project(streamt_project, [long, "orders--eu__v1"]), *KAFKA)
    assert ok.ok, ok.envelope
    names = sorted(by_name(ok.data["entities"], "Resource"))
    assert len(names) == 2 and all(len(n) <= 63 for n in names) and "orders-eu-v1" in names
    for entity in ok.data["entities"]:
        validate(entity)
    annotations = [e["metadata"]["annotations"].get("streamt.dev/topic") for e in ok.data["entities"]]
    assert long in annotations  # the exact topic name is kept where Backstage allows any string
    clash = docs("--project-dir", _project(streamt_project, ["orders--v1", "orders__v1"]), *KAFKA)
    assert clash.exit_code == 1 and clash.error_codes == ["E507_BACKSTAGE_INVALID"]
    assert "orders-v1" in clash.envelope["errors"][0]["message"]


def test_text_output_and_atomic_output_file(tmp_path: Path) -> None:
    argv = ["docs", "backstage", *REQUIRED, *KAFKA, "--project-dir", str(EXAMPLES / "payments-pipeline")]
    out, err = io.StringIO(), io.StringIO()
    assert run(argv, out, err) == 0
    documents = list(yaml.safe_load_all(out.getvalue()))
    assert out.getvalue().startswith("---\n") and len(documents) == 8
    for entity in documents:
        validate(entity)
    assert "W113" in err.getvalue() and "W113" not in out.getvalue()
    target = tmp_path / "catalog-info.yaml"
    target.write_text("previous")
    file_out = io.StringIO()
    assert run([*argv, "--output-file", str(target)], file_out, io.StringIO()) == 0
    assert file_out.getvalue() == "" and target.read_text() == out.getvalue()
    assert [p.name for p in tmp_path.iterdir()] == ["catalog-info.yaml"]
    envelope = docs("--project-dir", EXAMPLES / "payments-pipeline", *KAFKA, "--output-file", target)
    assert envelope.data["output_file"] == str(target) and envelope.data["entities"] == documents
    (tmp_path / "a-file").write_text("x")
    failed = docs(
        "--project-dir", EXAMPLES / "payments-pipeline", *KAFKA, "--output-file", tmp_path / "a-file" / "c.yaml"
    )
    assert failed.error_codes == ["E507_BACKSTAGE_INVALID"] and failed.data == {}


def test_bytes_are_identical_across_runs_and_hash_seeds(tmp_path: Path) -> None:
    outputs = set()
    for seed in ("0", "1", "4242"):
        target = tmp_path / f"catalog-{seed}.yaml"
        argv = [
            "docs", "backstage", *REQUIRED, *KAFKA, *GATEWAY,
            "--project-dir", str(EXAMPLES / "ownership-gateway"), "--output-file", str(target),
        ]  # fmt: skip
        code = f"import sys; from streamt.cli import run; sys.exit(run({argv!r}, sys.stdout, sys.stderr))"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
        outputs.add(target.read_bytes())
    assert len(outputs) == 1 and next(iter(outputs))


def test_secrets_never_reach_entities(streamt_project: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BS_TEST_PASSWORD", SENTINEL)
    monkeypatch.setenv("WAREHOUSE_PASSWORD", SENTINEL)
    monkeypatch.setenv("WAREHOUSE_USER", SENTINEL)
    monkeypatch.setenv("WAREHOUSE_JDBC_URL", f"jdbc:postgresql://u:{SENTINEL}@db/x")
    project = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "k:9092", "sasl_password": "${BS_TEST_PASSWORD}"}},
                "models": [{"name": "orders", "topic": {"name": "orders-v1"}}],
            }
        }
    )
    for directory in (project, EXAMPLES / "payments-pipeline"):
        outcome = docs("--project-dir", directory, *KAFKA)
        assert outcome.ok and SENTINEL not in outcome.stdout + outcome.stderr
        out, err = io.StringIO(), io.StringIO()
        assert run(["docs", "backstage", *REQUIRED, *KAFKA, "--project-dir", str(directory)], out, err) == 0
        assert SENTINEL not in out.getvalue() + err.getvalue()
