"""Column changes through the chain: a type narrowed, widened, a column removed or renamed reaches every
downstream reader that uses it, through column lineage, each with its path; and on every step of the
scripted Git history the text, JSON and Markdown agree."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from streamt_impact.gitread import Repository
from streamt_impact.report import build
from streamt_impact.snapshot import Side, take

sys.path.insert(0, str(Path(__file__).parent))
import itertools

import history
from agree import agree
from test_compare import project, report

SOURCE = {"name": "raw", "columns": [{"name": "id", "type": "STRING"}, {"name": "amount", "type": "BIGINT"}]}
COPY = {"name": "clean", "materialized": "flink", "sql": "SELECT id, amount FROM {{ ref('raw') }} WHERE amount > 0"}
TOTAL = {
    "name": "total",
    "materialized": "flink",
    "sql": "SELECT id, SUM(amount) AS amount_sum FROM {{ ref('clean') }} GROUP BY id",
}
APP = {
    "name": "billing",
    "type": "application",
    "consumes": [{"ref": "total", "columns": [{"name": "amount_sum", "type": "BIGINT"}]}],
}
IDS = {"name": "ids", "type": "application", "consumes": [{"ref": "total", "columns": [{"name": "id"}]}]}


def files(source_type: str = "BIGINT", total: dict[str, Any] | None = None, column: str = "amount") -> dict[str, bytes]:
    source = {**SOURCE, "columns": [SOURCE["columns"][0], {"name": column, "type": source_type}]}
    return project(models=[source, COPY, total or TOTAL], exposures=[APP, IDS])


def impacted(result: Any) -> dict[str, tuple[bool, list[str]]]:
    return {i.name: (i.breaking, list(i.reasons[0].via)) for i in result.impacted}


def test_a_type_narrowed_at_the_source_reaches_the_application_two_models_down() -> None:
    result = report(files(), files("INT"))
    shown, data, _md = agree(result)
    assert impacted(result) == {
        "clean": (True, ["clean"]),
        "total": (True, ["clean", "total"]),
        "billing": (True, ["clean", "total", "billing"]),
    }  # ids reads total.id only
    [why] = [r["why"] for i in data["impacted"] if i["name"] == "billing" for r in i["reasons"]]
    assert "uses column total.amount_sum (derived from raw.amount): type narrowed" in why
    assert "via raw -> clean -> total -> billing" in shown
    [field] = [f for c in data["changes"] if c["name"] == "raw" for f in c["fields"]]
    assert field["classification"] == "breaking"
    assert "downstream by total (as clean.amount), billing (as total.amount_sum)" in field["reason"]


def test_a_widened_type_reaches_the_same_readers_without_breaking_them() -> None:
    result = report(files("INT"), files("BIGINT"))
    agree(result)
    assert {name: breaking for name, (breaking, _) in impacted(result).items()} == {
        "clean": False,
        "total": False,
        "billing": False,
    }


def test_a_declared_or_computed_type_stops_a_type_change() -> None:
    counted = {**TOTAL, "sql": "SELECT id, COUNT(amount) AS amount_sum FROM {{ ref('clean') }} GROUP BY id"}
    result = report(files(total=counted), files("INT", total=counted))
    agree(result)
    assert set(impacted(result)) == {"clean", "total"}  # COUNT is BIGINT whatever it counts


def test_a_removed_or_renamed_column_reaches_every_column_derived_from_it() -> None:
    result = report(files(), files(column="amount_cents"))  # the readers' SQL still reads amount
    shown, data, _ = agree(result)
    fields = {(c["name"], f["field"]): f["classification"] for c in data["changes"] for f in c["fields"]}
    assert fields[("raw", "columns.amount")] == "breaking"
    assert fields[("raw", "columns.amount_cents")] == "non-breaking"
    chain = impacted(result)
    assert chain["billing"] == (True, ["clean", "total", "billing"])
    assert "uses column total.amount_sum (derived from raw.amount): renamed to amount_cents" in shown


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("chain") / "repo"
    return root, history.build(root)


def test_every_history_step_agrees_in_text_json_and_markdown(repo: tuple[Path, list[str]]) -> None:
    root, commits = repo
    repository = Repository.containing(root / history.PROJECT)
    snapshots = [take(Side("x", c, c), repository.project_files(c), None) for c in commits]
    for before, after in itertools.pairwise(snapshots):
        agree(build(before, after))
