"""The lake provider keeps streamt's provider and compiler contracts (the conformance kit)."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamt_lake
from streamt.sdk import Artifact
from streamt_lake import KIND, LakeDeployer, LakeObserver, LakePlanner
from streamt_testing.contracts import CompilerContract, ProviderContract

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "shop"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "orders_raw", "topic": "orders.raw"}],
        "models": [
            {
                "name": "orders_lake",
                "materialized": "lake_table",
                "sql": "SELECT id, amount FROM {{ source('orders_raw') }}",
                "columns": [{"name": "id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}],
            }
        ],
    }
}


def _table(name: str, columns: int = 1) -> Artifact:
    spec = {"table": name, "columns": [{"name": f"c{i}", "type": "STRING"} for i in range(columns)], "reads": []}
    return Artifact(KIND, name, name, spec, provider="streamt-lake")


class TestLakeProvider(ProviderContract):
    @pytest.fixture
    def provider(self, tmp_path: Path):
        return LakeObserver(tmp_path), LakePlanner(), LakeDeployer(tmp_path)

    @pytest.fixture
    def desired(self) -> Artifact:
        return _table("orders")

    @pytest.fixture
    def changed(self):
        return lambda artifact: _table(artifact.identity, columns=2)

    @pytest.fixture
    def refused(self) -> Artifact:
        return _table("Not-A-Table")


class TestLakeCompiler(CompilerContract):
    @pytest.fixture(autouse=True)
    def lake_plugin(self, streamt_plugin):
        # Only this plugin answers (isolated from whatever else is installed); registering it
        # works whether or not it is also pip-installed.
        streamt_plugin(streamt_lake, name="lake", isolated=True)

    @pytest.fixture
    def compiler_project(self, streamt_project) -> Path:
        return streamt_project(PROJECT)

    @pytest.fixture
    def compiler_kinds(self) -> list[str]:
        return [KIND]


def test_a_lake_table_model_passes_validate(streamt_plugin, streamt_project, streamt_cli) -> None:
    streamt_plugin(streamt_lake, name="lake", isolated=True)
    outcome = streamt_cli("validate", "-p", streamt_project(PROJECT))
    assert outcome.ok, outcome.envelope


def test_without_the_plugin_the_materialization_is_unknown(streamt_isolated, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(PROJECT))
    (error,) = [e for e in outcome.envelope["errors"] if e["code"] == "E501_PARSE_ERROR"]
    assert "Invalid materialized type 'lake_table'" in error["message"]
