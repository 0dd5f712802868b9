"""A plan summary never spells a missing value as Python's None."""

from __future__ import annotations

from streamt.sdk import PRESENT, Artifact, Observation
from streamt_kafka.planning import TopicPlanner


def test_a_config_key_the_topic_does_not_have_is_unset() -> None:
    artifact = Artifact(
        kind="topic", name="t", identity="t", spec={"partitions": 1, "replication_factor": 1, "config": {"a.b": "100"}}
    )
    live = Observation(PRESENT, {"partitions": 1, "replication_factor": 1, "config": {}})
    (action,) = TopicPlanner().plan(artifact, live, None)
    assert action.summary == "config.a.b: unset → 100"
    assert action.evidence["changes"]["config.a.b"] == {"from": None, "to": "100"}  # JSON keeps null
