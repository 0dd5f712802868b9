"""Identity changes, detected by compiled identity: a renamed Flink model, runner or sink is a new
job/connector with a new consumer group beside the old one (a duplicate writer); a renamed topic
names the jobs that must be redeployed."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from agree import agree
from test_compare import JOB, RAW, SINK, project, report

KEPT = {"advanced": {"topic": {"name": "shop.out"}}}
FLINK = {"name": "out", "materialized": "flink", "sql": "SELECT id, n FROM {{ ref('raw') }} WHERE n > 1", **KEPT}
READER = {
    "name": "per_id",
    "materialized": "flink",
    "sql": "SELECT id, COUNT(*) AS c FROM {{ ref('out') }} GROUP BY id",
}
APP = {"name": "app", "type": "application", "consumes": [{"ref": "out"}]}


def files(first: dict[str, Any], reader: str = "out") -> dict[str, bytes]:
    per_id = {**READER, "sql": READER["sql"].replace("'out'", f"'{reader}'")}
    app = {**APP, "consumes": [{"ref": reader}]}
    return project(models=[RAW, first, per_id, {**SINK, "from": [{"ref": reader}]}], exposures=[app])


def fields(result: Any) -> dict[tuple[str, str], dict[str, str]]:
    return {(c.name, f.field): (f.classification, f.reason) for c in result.changes for f in c.fields}


def test_a_renamed_flink_model_is_a_new_job_beside_the_old_one() -> None:
    renamed = {**FLINK, "name": "out_v2"}
    result = report(files(FLINK), files(renamed, reader="out_v2"))
    shown, data, md = agree(result)
    level, reason = fields(result)[("out_v2", "identity.flink_job")]
    assert level == "breaking"
    assert "a new flink job p/default/out_v2 with a new consumer group streamt.p.default.out_v2" in reason
    assert "starting at earliest-offset" in reason
    assert (
        "the old flink job p/default/out, writing shop.out, keeps running until removed: a duplicate writer" in reason
    )
    assert fields(result)[("out", "declaration")][0] == "operational"  # the ownership record: adoption
    assert "identity_change" in [w["id"] for w in data["workflows"]]
    assert {i["name"] for i in data["impacted"] if i["breaking"]} >= {"per_id", "app"}
    assert "duplicate writer" in shown and "duplicate writer" in md


def test_a_renamed_kafka_streams_model_is_a_new_application_id() -> None:
    runner = {**JOB, **KEPT}
    result = report(files(runner), files({**runner, "name": "out_v2"}, reader="out_v2"))
    agree(result)
    level, reason = fields(result)[("out_v2", "identity.kafka_streams_job")]
    assert level == "breaking" and "new consumer group streamt-p-default-out_v2 starting at latest" in reason


def test_a_renamed_sink_is_a_new_connector_with_a_new_group() -> None:
    before = project(models=[RAW, FLINK, SINK])
    after = project(models=[RAW, FLINK, {**copy.deepcopy(SINK), "name": "to_warehouse"}])
    result = report(before, after)
    agree(result)
    level, reason = fields(result)[("to_warehouse", "identity.connector")]
    assert level == "breaking" and "new consumer group connect-p.default.to_warehouse starting at earliest" in reason
    assert "${JDBC_URL}" not in str(result.to_json())  # sink config pairs the rename but is never echoed


def test_a_renamed_topic_names_the_jobs_to_redeploy() -> None:
    moved = {**FLINK, "advanced": {"topic": {"name": "shop.out.v2"}}}
    result = report(files(FLINK), files(moved))
    _shown, _, _md = agree(result)
    level, reason = fields(result)[("out", "topic.name")]
    assert level == "breaking" and "redeploy model per_id, model to_db (they read it by name)" in reason
