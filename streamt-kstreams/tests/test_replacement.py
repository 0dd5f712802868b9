"""Reviewed replacement decisions (pure: no engine): eligibility, the next provable step, offset bounds."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamt.sdk import PRESENT, Artifact, Observation, SafetyBlocker, StreamtError, canonical_json, sha256_checksum
from streamt_kstreams import offsets, planner
from streamt_kstreams.coordinator import Live, next_step
from streamt_kstreams.replacement import REVIEWED_REASON, UPDATE_REASON, binding

OLD = {
    "application_id": "streamt-p-default-m",
    "container_name": "streamt-p-default-m",
    "environment": "default",
    "input": {"kind": "model", "name": "raw", "topic": "p.raw"},
    "predicates": [{"column": "amount", "op": ">=", "type": "BIGINT", "value": 100}],
    "project": "p",
    "projections": [{"column": "id", "name": "id", "type": "STRING"}],
    "runtime": {"image": "sha256:" + "1" * 64, "docker_network": "host"},
    "state_volume": "streamt-p-default-m-state",
}
OLD_SUM = sha256_checksum(canonical_json(OLD))


def artifact(**changes) -> Artifact:
    return Artifact(kind="kafka_streams_job", name="m", identity="m", spec={**OLD, **changes}, provider="x")


def definition(spec=OLD, **overrides) -> dict:
    found = {"generation": 1, "image": OLD["runtime"]["image"], "spec": spec, "verified": True}
    return {**found, "volumes": [OLD["state_volume"]], **overrides}


def record(checksum: str = OLD_SUM, **attributes):
    return SimpleNamespace(artifact_checksum=checksum, attributes=attributes)


def reasons(target: Artifact, found: dict, owned=None) -> list[str]:
    rows = [{"id": "c1", "state": "running", "checksum": OLD_SUM}]
    observation = Observation(PRESENT, {"containers": rows, "definition": found})
    items = planner.KafkaStreamsPlanner().plan(target, observation, owned or record())
    return [i.reason for i in items if isinstance(i, SafetyBlocker)]


def test_a_predicate_only_change_is_a_reviewed_replacement_with_its_binding():
    new = artifact(predicates=[{"column": "amount", "op": ">=", "type": "BIGINT", "value": 300}])
    assert reasons(new, definition()) == [REVIEWED_REASON]
    bound = binding(new, {"id": "c1", "checksum": OLD_SUM}, definition(generation=3), record(generation=3))
    assert isinstance(bound, dict)
    assert (bound["generation"], bound["candidate_generation"]) == (3, 4)
    assert bound["candidate_container_name"] == "streamt-p-default-m-g4"
    assert (bound["from_checksum"], bound["to_checksum"], bound["container_id"]) == (OLD_SUM, new.checksum, "c1")
    assert (bound["volume"], bound["input_topic"]) == (OLD["state_volume"], "p.raw")


@pytest.mark.parametrize(
    ("changes", "found", "owned"),
    [
        ({"projections": []}, definition(), None),  # a projection change
        ({"runtime": {**OLD["runtime"], "image": "sha256:" + "2" * 64}}, definition(), None),  # an image change
        ({"predicates": []}, definition(verified=False), None),  # the running definition cannot be verified
        ({"predicates": []}, definition(volumes=[]), None),  # the volume is not mounted
        ({"predicates": []}, definition(generation=2), None),  # not the owned generation
        ({"predicates": []}, definition(), record("sha256:" + "0" * 64)),  # the record names another definition
    ],
)
def test_anything_else_stays_the_update_blocker(changes, found, owned):
    assert reasons(artifact(**changes), found, owned) == [UPDATE_REASON]


def test_a_projection_change_says_why_it_is_no_replacement_in_the_plan_json():
    # The runner docs promise a kafka_streams_replacement field with eligible: false and the reason.
    from streamt.apply.replacement import prepare
    from streamt.plan.model import Plan, StateReference

    rows = [{"id": "c1", "state": "running", "checksum": OLD_SUM}]
    observation = Observation(PRESENT, {"containers": rows, "definition": definition()})
    items = planner.KafkaStreamsPlanner().plan(artifact(projections=[]), observation, record())
    actions = tuple(i for i in items if not isinstance(i, SafetyBlocker))
    blockers = tuple(i for i in items if isinstance(i, SafetyBlocker))
    state = StateReference("local", "streamt-state://local/p/default", 1, "sha256:" + "c" * 64, "store")
    plan = Plan("p", "default", False, "sha256:" + "a" * 64, "sha256:" + "b" * 64, actions, blockers, state)
    key, binding, field = prepare(None, plan, None, lambda: {})
    assert (
        key == "kafka_streams_replacement"
        and binding is None
        and field["eligible"] is False
        and field["saved"] is False
    )
    assert field["reason"].startswith("not a predicate-only change: ") and field["next_commands"] == []


BINDING = {"container_id": "old", "candidate_container_name": "cand"}
RUNNING = {"Id": "x", "State": {"Status": "running", "Health": {"Status": "healthy"}}}
STARTING = {"Id": "x", "State": {"Status": "running", "Health": {"Status": "starting"}}}
EXITED = {"Id": "x", "State": {"Status": "exited"}}
CREATED = {"Id": "x", "State": {"Status": "created"}}


@pytest.mark.parametrize(
    ("phase", "old", "candidate", "step"),
    [
        ("intent_recorded", RUNNING, None, "stop_old"),
        ("intent_recorded", EXITED, None, "create_candidate"),  # a lost answer after the real stop
        ("old_stopped", EXITED, CREATED, "await_candidate"),  # a lost answer after the real create
        ("candidate_created", EXITED, STARTING, "await_candidate"),
        ("candidate_running", EXITED, RUNNING, "remove_old"),
        ("candidate_running", None, RUNNING, "commit"),
        ("old_removed", None, RUNNING, "commit"),
        ("old_removed", None, STARTING, "await_candidate"),
    ],
)
def test_the_next_step_is_proven_by_journal_and_engine(phase, old, candidate, step):
    assert next_step(phase, Live(old, candidate), BINDING) == step


@pytest.mark.parametrize(("old", "candidate"), [(None, None), (RUNNING, CREATED)])
def test_unprovable_topologies_block(old, candidate):
    with pytest.raises(StreamtError) as caught:
        next_step("old_removed", Live(old, candidate), BINDING)
    assert caught.value.diagnostics[0].code.code == "E419_STATE_RECOVERY_REQUIRED"


def test_offsets_may_only_move_forward():
    assert offsets.regressions({"0": 4, "1": None}, {"0": 4, "1": None}) == []
    assert offsets.regressions({"0": 4}, {"0": 9}) == []
    assert offsets.regressions({"0": 4, "1": 2}, {"0": 3, "1": None}) == ["0", "1"]
