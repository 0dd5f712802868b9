"""`compiled_view`: the compiled block `show model` adds (the seed's JSON example)."""

from __future__ import annotations

import pytest
from shared_material import SHARED
from streamt.compile import compiled_view
from streamt.errors import Codes, StreamtError
from streamt.project.loader import load_project

EXAMPLES = SHARED / "spec" / "examples"


def test_a_flink_model_shows_rendered_sql_topic_and_flink_blocks() -> None:
    project = load_project(EXAMPLES / "payments-pipeline")
    view = compiled_view(project, "merchant_totals_1m")
    assert "payments.clean.v1" in view["sql"] and "ref(" not in view["sql"]
    assert view["topic"]["partitions"] == 6
    assert view["flink"]  # the declared job settings, without unset keys
    assert None not in view["flink"].values()
    kinds = {a["kind"] for a in view["artifacts"]}
    assert {"topic", "flink_job"} <= kinds


def test_a_topic_only_model_has_no_flink_block() -> None:
    view = compiled_view(load_project(EXAMPLES / "minimal-topic"), "page_titles")
    assert view["sql"] is None and "flink" not in view
    assert view["topic"] == {"config": {"cleanup.policy": "compact"}, "partitions": 1, "replication_factor": 1}


def test_an_unknown_model_is_e102() -> None:
    with pytest.raises(StreamtError) as caught:
        compiled_view(load_project(EXAMPLES / "minimal-topic"), "nope")
    assert caught.value.diagnostics[0].code == Codes.E102_MODEL_NOT_FOUND
