"""The topics-csv exporter, tested the way a plugin author would: with the streamt_testing fixtures."""

from __future__ import annotations

import csv
import importlib
import io
from pathlib import Path

import pytest
from streamt_testing.contracts import ExporterContract

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "shop"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "defaults": {"topic": {"partitions": 3, "replication_factor": 2}},
        "sources": [{"name": "orders_raw", "topic": "orders.raw"}],
    },
    "models/orders.yml": {
        "models": [
            {
                "name": "orders_clean",
                "materialized": "topic",
                "topic": {"name": "orders.clean", "partitions": 6},
                "sql": "SELECT * FROM {{ source('orders_raw') }}",
            },
            {"name": "big_orders", "materialized": "topic", "sql": "SELECT * FROM {{ ref('orders_clean') }}"},
        ]
    },
}


@pytest.fixture
def topics_csv(monkeypatch: pytest.MonkeyPatch, streamt_plugin):
    # Installed plugins are found through their entry point; here we register the module directly.
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "src"))
    return streamt_plugin(importlib.import_module("streamt_topics_csv"), name="topics-csv")


def test_one_row_per_topic_with_defaults_filled_in(topics_csv, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("export", "topics-csv", "--project-dir", streamt_project(PROJECT))
    assert outcome.ok, outcome.envelope
    assert outcome.data["topics"] == [
        {"topic": "big_orders", "partitions": 3, "replication_factor": 2, "owner_model": "big_orders"},
        {"topic": "orders.clean", "partitions": 6, "replication_factor": 2, "owner_model": "orders_clean"},
    ]


def test_output_file_holds_the_csv(topics_csv, streamt_project, streamt_cli, tmp_path: Path) -> None:
    target = tmp_path / "topics.csv"
    outcome = streamt_cli("export", "topics-csv", "--project-dir", streamt_project(PROJECT), "--output-file", target)
    assert outcome.ok and outcome.data["output_file"] == str(target)
    rows = list(csv.reader(io.StringIO(target.read_text())))
    assert rows == [
        ["topic", "partitions", "replication_factor", "owner_model"],
        ["big_orders", "3", "2", "big_orders"],
        ["orders.clean", "6", "2", "orders_clean"],
    ]


def test_an_unwritable_output_file_is_e905(topics_csv, streamt_project, streamt_cli, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    target = tmp_path / "a-file" / "topics.csv"
    outcome = streamt_cli("export", "topics-csv", "--project-dir", streamt_project(PROJECT), "--output-file", target)
    assert outcome.error_codes == ["E905_OUTPUT_WRITE_FAILED"]


def test_a_missing_project_is_the_loaders_error(topics_csv, streamt_cli, tmp_path: Path) -> None:
    outcome = streamt_cli("export", "topics-csv", "--project-dir", tmp_path / "nowhere")
    assert outcome.error_codes == ["E501_PARSE_ERROR"]


class TestTopicsCsvContract(ExporterContract):
    """The conformance kit: one envelope, the same bytes twice, an atomic --output-file, no secret."""

    @pytest.fixture(autouse=True)
    def registered(self, topics_csv):
        return topics_csv

    @pytest.fixture
    def exporter_args(self):
        return ["export", "topics-csv"]
