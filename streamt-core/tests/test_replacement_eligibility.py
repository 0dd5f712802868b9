"""When a plan may become a format-6 reviewed replacement (pure: plan values only)."""

from __future__ import annotations

from typing import Any

import pytest
from streamt.apply.replacement import candidate, ineligible_reason, prepare, replacement_text
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.plan.model import Action, Observation, Plan, SafetyBlocker, StateReference

STATE = StateReference("local", "streamt-state://local/p/default", 1, "sha256:" + "c" * 64, "store")
RUNNER = Artifact(kind="kafka_streams_job", name="m", identity="m", spec={"x": 2})
TOPIC = Artifact(kind="topic", name="t", identity="t", spec={"partitions": 3})
SEEN = Observation("present", {})
REPLACE = Action.for_artifact("update", RUNNER, "r", SEEN, replacement={"application_id": "a", "input_topic": "t"})
REVIEWED = SafetyBlocker("kafka_streams_reviewed_replacement", "kafka_streams_job", "m", "reviewed")


def plan(*actions: Action, blockers: tuple[SafetyBlocker, ...] = (REVIEWED,), state: Any = STATE) -> Plan:
    return Plan("p", "default", state is None, "sha256:" + "a" * 64, "sha256:" + "b" * 64, actions, blockers, state)


def test_the_sole_replacement_of_the_full_project_is_eligible():
    sole = plan(REPLACE, Action.for_artifact("noop", TOPIC, "", SEEN))
    assert candidate(sole) is REPLACE and ineligible_reason(sole, REPLACE) is None


@pytest.mark.parametrize(
    ("shape", "why"),
    [
        (plan(REPLACE, Action.for_artifact("update", TOPIC, "", SEEN)), "only change"),  # a mixed mutation
        (plan(REPLACE, state=None), "offline"),
        (plan(REPLACE, blockers=(REVIEWED, SafetyBlocker("kafka_partition_reduction", "topic", "t", "no"))), "other"),
        (plan(REPLACE, blockers=(SafetyBlocker("kafka_streams_update", "kafka_streams_job", "m", "no"),)), "other"),
    ],
)
def test_anything_else_is_not_saved_as_format_6(shape: Plan, why: str):
    reason = ineligible_reason(shape, REPLACE)
    assert reason is not None and why in reason
    key, binding, field = prepare(None, shape, "out.json", lambda: {})
    assert key == "kafka_streams_replacement" and binding is None and field["saved"] is False and why in field["reason"]


def test_a_preparation_failure_raises_before_anything_is_written():
    class Failing:
        def prepare_replacement(self, replacement: dict[str, Any]) -> dict[str, Any]:
            raise StreamtError(Codes.E406_CONNECTION_REFUSED, "offsets unreadable", "retry")

    with pytest.raises(StreamtError):
        prepare(None, plan(REPLACE), "out.json", lambda: {"kafka_streams_job": Failing()})
    assert prepare(None, plan(), "out.json", lambda: {}) == (None, None, None)  # no replacement offered at all


def test_the_plan_text_names_the_next_command_or_the_reason():
    saved = {"eligible": True, "saved": True, "reason": None, "next_commands": ["streamt apply --plan f.json"]}
    assert replacement_text(saved).endswith("streamt apply --plan f.json")
    assert "only change" in replacement_text(prepare(None, plan(REPLACE, REPLACE), "o", lambda: {})[2])
