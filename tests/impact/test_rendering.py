"""One rendering truth: labels agree across formats, moved inputs say from → to, readers are counted by
type, and a partition change breaks stateful readers only."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from agree import agree
from test_compare import JOB, RAW, SINK, project, report

STATEFUL = {
    "name": "per_id",
    "materialized": "flink",
    "sql": "SELECT id, COUNT(*) AS c FROM {{ ref('out') }} GROUP BY id",
}
FLINK_OUT = {**JOB, "executor": "flink", "key": "id", "advanced": {"topic": {"partitions": 3}}}
APPS = [
    {"name": "board", "type": "dashboard", "consumes": [{"ref": "out"}]},
    {"name": "app", "type": "application", "consumes": [{"ref": "out"}]},
]


def lineage(**changes: Any) -> dict[str, bytes]:
    models = [RAW, copy.deepcopy(FLINK_OUT), STATEFUL, SINK]
    for model in models:
        model.update(changes.get(model["name"], {}))
    return project(models=models, exposures=changes.get("exposures", APPS))


def test_a_partition_change_breaks_stateful_readers_only_and_every_format_says_so() -> None:
    after = lineage(out={"advanced": {"topic": {"partitions": 6}}})
    result = report(lineage(), after)
    _shown, data, _md = agree(result)
    effects = {i["name"]: i["effect"] for i in data["impacted"]}
    assert effects == {"per_id": "breaking", "app": "breaking", "to_db": "affected", "board": "affected"}
    [field] = data["changes"][0]["fields"]
    assert "stateless model to_db, exposure board keep working" in field["reason"]


def test_readers_are_counted_by_type_not_as_custom_applications() -> None:
    result = report(lineage(), lineage(out={"sql": "SELECT id, n FROM {{ ref('raw') }} WHERE n > 2"}))
    shown, data, md = agree(result)
    assert data["summary"]["impacted_by_type"] == {"application": 1, "dashboard": 1, "model": 2}
    assert "4 impacted downstream (1 application, 1 dashboard, 2 models)" in shown
    assert "custom application" not in md


def test_a_moved_input_says_from_and_to_in_text() -> None:
    moved = [APPS[0], {"name": "app", "type": "application", "consumes": [{"ref": "per_id"}]}]
    result = report(lineage(), lineage(exposures=moved))
    shown, _data, _ = agree(result)
    assert "[non-breaking] consumes: consumes out → per_id" in shown


def test_a_reader_that_also_changed_is_labelled_by_both_in_the_graph() -> None:
    """The rename case of the issue: a reader recompiled by the change is drawn with its impact, not its
    own (milder) change classification."""
    after = lineage(out={"advanced": {"topic": {"name": "out.v2", "partitions": 3}}})
    _, data, md = agree(report(lineage(), after))
    assert {i["name"] for i in data["impacted"] if i["breaking"]} >= {"per_id", "to_db", "app", "board"}
    assert "per_id (changed: operational, impact: breaking)" in md
