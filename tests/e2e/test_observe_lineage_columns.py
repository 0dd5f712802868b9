"""``lineage --columns``: types from declarations, derived columns name their source columns, unknown stays explicit."""

from __future__ import annotations

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "lin"},
        "runtime": {
            "kafka": {"bootstrap_servers": "localhost:9092"},
            "flink": {"default": "local", "clusters": {"local": {"rest_url": "http://localhost:8081"}}},
        },
        "sources": [
            {
                "name": "orders",
                "topic": "orders.raw",
                "columns": [
                    {"name": "customer_id", "type": "STRING"},
                    {"name": "amount", "type": "DECIMAL(10, 2)"},
                ],
            },
            {"name": "events", "topic": "events.raw", "schema": {"fields": [{"name": "kind", "type": "STRING"}]}},
        ],
        "models": [
            {
                "name": "totals",
                "materialized": "flink",
                "sql": "SELECT customer_id, SUM(amount) AS total, COUNT(*) AS n, AVG(amount) AS mean, "
                "UPPER(customer_id) AS cust, CAST(amount AS DOUBLE) AS amt "
                'FROM {{ source("orders") }} GROUP BY customer_id',
                "columns": [{"name": "n", "type": "INT"}],
            },
            {"name": "copied", "materialized": "flink", "sql": 'SELECT * FROM {{ source("events") }}'},
        ],
    }
}


def test_column_lineage_types_and_sources(streamt_cli, streamt_project) -> None:
    project = streamt_project(PROJECT)
    outcome = streamt_cli("lineage", "-p", project, "--model", "totals", "--columns")
    assert outcome.ok, outcome.envelope
    columns = {c["name"]: c for c in outcome.data["columns"]}
    assert columns["customer_id"] == {"name": "customer_id", "type": "STRING", "type_source": "upstream",
                                      "from": ["orders.customer_id"], "expression": None}  # fmt: skip
    assert columns["total"] == {"name": "total", "type": "DECIMAL(10, 2)", "type_source": "upstream",
                                "from": ["orders.amount"], "expression": "SUM(amount)"}  # fmt: skip
    assert (columns["n"]["type"], columns["n"]["type_source"], columns["n"]["from"]) == ("INT", "declared", [])
    assert (columns["mean"]["type"], columns["mean"]["type_source"]) == (None, "unknown")
    assert (columns["cust"]["type"], columns["cust"]["from"]) == (None, ["orders.customer_id"])
    assert (columns["amt"]["type"], columns["amt"]["type_source"]) == ("DOUBLE", "inferred")

    star = streamt_cli("lineage", "-p", project, "--model", "copied", "--columns").data["columns"]
    assert star == [{"name": "kind", "type": "STRING", "type_source": "upstream", "from": ["events.kind"],
                     "expression": None}]  # fmt: skip


def test_column_lineage_text(streamt_project) -> None:
    from io import StringIO

    from streamt.cli import run

    out = StringIO()
    assert run(["lineage", "-p", str(streamt_project(PROJECT)), "--model", "totals", "--columns"], stdout=out) == 0
    text = out.getvalue()
    assert "  total (DECIMAL(10, 2)) <- orders.amount via SUM(amount)" in text
    assert "  mean (type unknown) <- orders.amount via AVG(amount)" in text
    assert "(derived)" not in text
