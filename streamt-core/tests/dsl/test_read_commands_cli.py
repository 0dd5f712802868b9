"""``list``, ``show``, ``lineage`` and ``docs dictionary`` through the CLI, against the spec examples.

Expected values come from the examples README (counts, materializations, lineage edges) and the CLI
reference (envelope fields, the ASCII tree shape, CSV header).
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from shared_material import SHARED

EXAMPLES = SHARED / "spec" / "examples"
PAY = EXAMPLES / "payments-pipeline"
pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="spec examples not present")

PAY_EDGES = {
    ("card_processor_gateway", "card_events"),
    ("card_events", "payments_clean"),
    ("payments_clean", "merchant_totals_1m"),
    ("payments_clean", "payments_to_warehouse"),
    ("merchant_totals_1m", "merchant_risk_service"),
    ("payments_to_warehouse", "finance_dashboard"),
}


# --- list -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("resource_type", "names"),
    [
        ("sources", ["card_events"]),
        ("models", ["merchant_totals_1m", "payments_clean", "payments_to_warehouse"]),
        ("tests", ["merchant_totals_monitor", "payments_clean_sample", "payments_clean_shape"]),
        ("exposures", ["card_processor_gateway", "finance_dashboard", "merchant_risk_service"]),
    ],
)
def test_list_each_type(resource_type: str, names: list[str], cli) -> None:
    run = cli("json", "list", resource_type, "-p", PAY)
    assert run.exit_code == 0
    data = run.envelope["data"]
    assert data["resource_type"] == resource_type and data["count"] == len(names)
    assert [i["name"] for i in data["items"]] == names  # sorted by name by default
    text = cli("text", "list", resource_type, "-p", PAY)
    noun = resource_type[:-1] if len(names) == 1 else resource_type  # "1 source", "3 models"
    assert text.stdout.splitlines()[0] == f"{len(names)} {noun}"
    assert [line.split()[0] for line in text.stdout.splitlines()[1:]] == names


def test_list_models_fields_match_the_reference(cli) -> None:
    items = {i["name"]: i for i in cli("json", "list", "models", "-p", PAY).envelope["data"]["items"]}
    assert items["payments_clean"]["materialized"] == "flink"
    assert items["merchant_totals_1m"]["upstream"] == ["payments_clean"]
    assert items["payments_to_warehouse"]["materialized"] == "sink"
    assert items["payments_clean"]["downstream"] == ["merchant_totals_1m", "payments_to_warehouse"]


def test_list_text_rows(cli) -> None:
    lines = cli("text", "list", "models", "-p", PAY).stdout.splitlines()
    assert lines[1].split() == ["merchant_totals_1m", "flink", "<-", "payments_clean"]
    assert cli("text", "list", "sources", "-p", PAY).stdout.splitlines()[1].split() == [
        "card_events",
        "payments.card-events.v1",
    ]
    assert cli("text", "list", "tests", "-p", PAY).stdout.splitlines()[1].split() == [
        "merchant_totals_monitor",
        "continuous",
        "on",
        "merchant_totals_1m",
    ]


@pytest.mark.parametrize(
    ("resource_type", "selector", "names"),
    [
        ("models", "+merchant_totals_1m", ["merchant_totals_1m", "payments_clean"]),
        ("models", "payments_clean+", ["merchant_totals_1m", "payments_clean", "payments_to_warehouse"]),
        ("models", "payments_clean", ["payments_clean"]),
        ("models", "payments_clean,merchant_totals_1m", ["merchant_totals_1m", "payments_clean"]),
        ("tests", "payments_clean", ["payments_clean_sample", "payments_clean_shape"]),
        ("sources", "+payments_clean", ["card_events"]),
    ],
)
def test_list_select(resource_type: str, selector: str, names: list[str], cli) -> None:
    data = cli("json", "list", resource_type, "-p", PAY, "--select", selector).envelope["data"]
    assert [i["name"] for i in data["items"]] == names and data["count"] == len(names)


def test_list_select_by_tag(streamt_project, base_files, cli) -> None:
    files = dict(base_files)
    files["models/clean.yml"] += "    tags: [finance]\n"
    files["models/clean.yml"] += (
        '  - name: other\n    materialized: flink\n    sql: SELECT id FROM {{ ref("clean") }}\n'
    )
    data = cli("json", "list", "models", "-p", streamt_project(files), "--select", "tag:finance").envelope["data"]
    assert [i["name"] for i in data["items"]] == ["clean"]


def test_list_select_unknown_name_is_a_usage_error_with_suggestion(cli) -> None:
    run = cli("json", "list", "models", "-p", PAY, "--select", "payments_clen")
    assert run.exit_code == 1
    assert run.envelope["errors"][0]["code"] == "E900_USAGE_ERROR"
    assert "payments_clean" in run.envelope["errors"][0]["suggestion"]


@pytest.mark.parametrize(
    ("sort_by", "names"),
    [
        ("name", ["merchant_totals_1m", "payments_clean", "payments_to_warehouse"]),
        ("type", ["merchant_totals_1m", "payments_clean", "payments_to_warehouse"]),  # flink, flink, sink
        ("upstream", ["payments_clean", "merchant_totals_1m", "payments_to_warehouse"]),  # card_events < payments_…
    ],
)
def test_list_sort_by(sort_by: str, names: list[str], cli) -> None:
    items = cli("json", "list", "models", "-p", PAY, "--sort-by", sort_by).envelope["data"]["items"]
    assert [i["name"] for i in items] == names


def test_list_sort_by_type_for_exposures(cli) -> None:
    items = cli("json", "list", "exposures", "-p", PAY, "--sort-by", "type").envelope["data"]["items"]
    assert [i["type"] for i in items] == ["application", "application", "dashboard"]


def test_list_unknown_type_is_a_usage_error(cli) -> None:
    run = cli("json", "list", "widgets", "-p", PAY)
    assert run.exit_code == 1 and run.envelope["errors"][0]["code"] == "E900_USAGE_ERROR"


# --- show -----------------------------------------------------------------------------------------


def test_show_model_json_has_the_reference_fields(cli) -> None:
    run = cli("json", "show", "model", "merchant_totals_1m", "-p", PAY)
    data = run.envelope["data"]
    assert run.exit_code == 0
    assert data["resource_type"] == "model" and data["name"] == "merchant_totals_1m"
    assert data["materialized"] == "flink"
    assert data["upstream"] == ["payments_clean"] and data["downstream"] == ["merchant_risk_service"]
    assert "TUMBLE" in data["sql"] and "{{" not in data["rendered_sql"]
    assert data["flink"]["parallelism"] == 4
    assert data["topic"]["name"] == "payments.merchant-totals.v1"


@pytest.mark.parametrize(
    ("resource_type", "name", "lines"),
    [
        ("source", "card_events", ["  topic: payments.card-events.v1", "  downstream: payments_clean"]),
        ("model", "merchant_totals_1m", ["  materialized: flink", "  upstream: payments_clean", "    parallelism: 4"]),
        ("test", "payments_clean_shape", ["  model: payments_clean", "  type: schema"]),
        ("exposure", "finance_dashboard", ["  type: dashboard", "  upstream: payments_to_warehouse"]),
    ],
)
def test_show_each_type(resource_type: str, name: str, lines: list[str], cli) -> None:
    data = cli("json", "show", resource_type, name, "-p", PAY).envelope["data"]
    assert data["resource_type"] == resource_type and data["name"] == name
    text = cli("text", "show", resource_type, name, "-p", PAY)
    assert text.exit_code == 0
    shown = text.stdout.splitlines()
    assert shown[0] == f"{resource_type} {name}"
    for line in lines:
        assert line in shown, text.stdout
    assert "{'" not in text.stdout and "['" not in text.stdout  # no Python reprs in text output


@pytest.mark.parametrize(
    ("resource_type", "typo", "code", "suggestion"),
    [
        ("source", "card_event", "E101_SOURCE_NOT_FOUND", "card_events"),
        ("model", "payments_clen", "E102_MODEL_NOT_FOUND", "payments_clean"),
        ("test", "payments_clean_shap", "E107_TEST_MODEL_NOT_FOUND", "payments_clean_shape"),
        ("exposure", "finance_dashbord", "E110_EXPOSURE_DEPENDENCY_NOT_FOUND", "finance_dashboard"),
    ],
)
def test_show_unknown_name(resource_type: str, typo: str, code: str, suggestion: str, cli) -> None:
    run = cli("json", "show", resource_type, typo, "-p", PAY)
    assert run.exit_code == 1
    error = run.envelope["errors"][0]
    assert error["code"] == code and f"'{typo}' not found" in error["message"]
    assert error["suggestion"].startswith(f"Did you mean '{suggestion}'")
    text = cli("text", "show", resource_type, typo, "-p", PAY)
    assert text.exit_code == 1 and code in text.stderr and suggestion in text.stderr


def test_show_diff_reads_live_state_and_fails_closed_when_it_cannot(cli) -> None:
    # The example's runtime points at services that are not running here: an honest E406, never E904.
    run = cli("json", "show", "model", "payments_clean", "--diff", "-p", PAY)
    assert run.envelope["errors"][0]["code"] == "E406_CONNECTION_REFUSED"


# --- lineage --------------------------------------------------------------------------------------


def test_lineage_json_edges_match_the_examples(cli) -> None:
    for fmt_args in ((), ("--format", "json")):
        run = cli("json", "lineage", "-p", PAY, *fmt_args)
        edges = {(e["from"], e["to"]) for e in run.envelope["data"]["edges"]}
        assert edges == PAY_EDGES
    raw = cli("text", "lineage", "-p", PAY, "--format", "json").stdout
    assert {(e["from"], e["to"]) for e in json.loads(raw)["edges"]} == PAY_EDGES


def test_lineage_ascii_tree(cli) -> None:
    text = cli("text", "lineage", "-p", PAY).stdout
    assert text.splitlines() == [
        "card_processor_gateway (exposure)",
        "    └── card_events (source)",
        "            └── payments_clean (flink)",
        "                    ├── merchant_totals_1m (flink)",
        "                    │       └── merchant_risk_service (exposure)",
        "                    └── payments_to_warehouse (sink)",
        "                            └── finance_dashboard (exposure)",
    ]


def test_lineage_mermaid(cli) -> None:
    text = cli("text", "lineage", "-p", PAY, "--format", "mermaid").stdout
    lines = text.splitlines()
    assert lines[0] == "graph LR"
    assert '    card_events[("card_events (source)")]' in lines
    assert {tuple(line.split(" --> ")) for line in lines if " --> " in line} == {(f"    {a}", b) for a, b in PAY_EDGES}
    assert cli("json", "lineage", "-p", PAY, "--format", "mermaid").envelope["data"]["mermaid"] == text.rstrip("\n")


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("--model", "payments_clean", "--upstream"), {"card_processor_gateway", "card_events", "payments_clean"}),
        (
            ("--model", "payments_clean", "--downstream"),
            {
                "payments_clean",
                "merchant_totals_1m",
                "merchant_risk_service",
                "payments_to_warehouse",
                "finance_dashboard",
            },
        ),
        (
            ("--model", "merchant_totals_1m"),
            {"card_processor_gateway", "card_events", "payments_clean", "merchant_totals_1m", "merchant_risk_service"},
        ),
    ],
)
def test_lineage_focus(args: tuple[str, ...], names: set[str], cli) -> None:
    data = cli("json", "lineage", "-p", PAY, *args).envelope["data"]
    assert {n["name"] for n in data["nodes"]} == names
    assert all(e["from"] in names and e["to"] in names for e in data["edges"])


def test_lineage_columns(cli) -> None:
    data = cli("json", "lineage", "-p", PAY, "--model", "merchant_totals_1m", "--columns").envelope["data"]
    columns = {c["name"]: c for c in data["columns"]}
    assert columns["merchant_id"]["from"] == ["payments_clean.merchant_id"]
    assert columns["payment_count"]["type"] == "BIGINT" and columns["payment_count"]["from"] == []
    text = cli("text", "lineage", "-p", PAY, "--model", "merchant_totals_1m", "--columns").stdout
    assert "Columns:" in text and "  merchant_id (STRING) <- payments_clean.merchant_id" in text


def test_lineage_errors(cli) -> None:
    no_model = cli("json", "lineage", "-p", PAY, "--columns")
    assert no_model.envelope["errors"][0]["code"] == "E900_USAGE_ERROR"
    unknown = cli("json", "lineage", "-p", PAY, "--model", "payments_clen")
    assert unknown.envelope["errors"][0]["code"] == "E102_MODEL_NOT_FOUND"
    assert "payments_clean" in unknown.envelope["errors"][0]["suggestion"]


# --- docs dictionary ------------------------------------------------------------------------------


def test_docs_dictionary_csv(cli) -> None:
    run = cli("text", "docs", "dictionary", "-p", PAY)
    assert run.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    header = "resource_type,resource,topic,column,type,description,classification,required,provenance"
    assert run.stdout.splitlines()[0] == header
    pan = next(r for r in rows if r["column"] == "card_pan")
    assert pan == {
        "resource_type": "source",
        "resource": "card_events",
        "topic": "payments.card-events.v1",
        "column": "card_pan",
        "type": "STRING",
        "description": "",
        "classification": "highly_sensitive",
        "required": "false",
        "provenance": "declared",
    }
    assert {r["required"] for r in rows} <= {"true", "false"}


def test_docs_dictionary_json_and_envelope_agree(cli) -> None:
    raw = json.loads(cli("text", "docs", "dictionary", "-p", PAY, "--format", "json").stdout)
    envelope = cli("json", "docs", "dictionary", "-p", PAY).envelope
    assert envelope["data"]["columns"] == raw and envelope["data"]["count"] == len(raw)
    assert raw[0]["required"] is True


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_docs_dictionary_is_deterministic(fmt: str, cli) -> None:
    first = cli("text", "docs", "dictionary", "-p", PAY, "--format", fmt).stdout
    assert first and all(
        cli("text", "docs", "dictionary", "-p", PAY, "--format", fmt).stdout == first for _ in range(3)
    )


def test_docs_dictionary_includes_declared_model_columns(streamt_project, base_files, cli) -> None:
    files = dict(base_files)
    files["models/clean.yml"] += "    columns: [{name: id, type: STRING, description: Event id}]\n"
    rows = cli("json", "docs", "dictionary", "-p", streamt_project(files)).envelope["data"]["columns"]
    assert [(r["resource_type"], r["resource"], r["column"]) for r in rows] == [
        ("source", "events", "id"),
        ("source", "events", "amount"),
        ("model", "clean", "id"),
    ]
