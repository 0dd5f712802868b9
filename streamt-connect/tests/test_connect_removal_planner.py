"""The connector removal planner's decision table and recovery classification (no worker needed)."""

from __future__ import annotations

from typing import Any

from streamt.plan.model import ABSENT, DELETE, NOOP, PRESENT, Action, Observation, SafetyBlocker
from streamt.sdk import KIND_CONNECTOR, KIND_CONNECTOR_REMOVAL, Artifact
from streamt.state.records import OwnershipRecord
from streamt_connect.live import config_fingerprint
from streamt_connect.removal import ConnectorRemovalPlanner

TOMBSTONE = Artifact(
    KIND_CONNECTOR_REMOVAL, "old_sink", "old_sink", {"cluster": "main", "name": "old_sink", "logical_owner": "old_sink"}
)
LIVE = {"name": "old_sink", "connector.class": "x.Sink", "topics": "t", "connection.password": "pw-1"}


def record(**attributes: Any) -> OwnershipRecord:
    return OwnershipRecord(
        "streamt://p/default/connector/old_sink", KIND_CONNECTOR, "old_sink", "old_sink", "managed", "sha256:prior",
        "streamt-connect", attributes=attributes,
    )  # fmt: skip


def present(config: dict[str, str]) -> Observation:
    return Observation(PRESENT, {"endpoint": "sha256:e", "fingerprint": config_fingerprint(config)})


def test_the_fingerprint_ignores_secret_values_but_not_the_rest() -> None:
    assert config_fingerprint(LIVE) == config_fingerprint({**LIVE, "connection.password": "other"})
    assert config_fingerprint(LIVE) != config_fingerprint({**LIVE, "topics": "u"})


def test_an_exact_recorded_connector_is_one_bound_delete() -> None:
    [action] = ConnectorRemovalPlanner().plan(
        TOMBSTONE, present(LIVE), record(config_fingerprint=config_fingerprint(LIVE))
    )
    assert isinstance(action, Action) and action.action == DELETE
    assert action.evidence["requires"] == ["reviewed_plan", "force"]
    binding = action.evidence["removal"]
    assert binding["connector"] == "old_sink" and binding["prior_artifact_checksum"] == "sha256:prior"
    assert binding["current_fingerprint"] == config_fingerprint(LIVE) != binding["desired_absence_fingerprint"]
    assert "pw-1" not in repr(action.to_json())


def test_absent_and_unrecorded_is_an_assessed_no_op() -> None:
    [action] = ConnectorRemovalPlanner().plan(TOMBSTONE, Observation(ABSENT, {"endpoint": "e"}), None)
    assert isinstance(action, Action) and action.action == NOOP


def test_everything_else_blocks() -> None:
    planner = ConnectorRemovalPlanner()
    cases = [
        (present(LIVE), None),  # live without ownership
        (Observation(ABSENT, {"endpoint": "e"}), record(config_fingerprint=config_fingerprint(LIVE))),  # gone
        (present({**LIVE, "topics": "changed"}), record(config_fingerprint=config_fingerprint(LIVE))),  # drifted
        (present(LIVE), record()),  # a record without a fingerprint cannot prove the target
    ]
    found = [planner.plan(TOMBSTONE, observation, rec) for observation, rec in cases]
    assert all(len(items) == 1 and isinstance(items[0], SafetyBlocker) for items in found)
    assert found[0][0].reason == "connector_removal_ownership_required"


def test_recovery_absent_is_deleted_and_the_journaled_preimage_is_prior() -> None:
    planner = ConnectorRemovalPlanner()
    journal = [{"preimage_fingerprint": config_fingerprint(LIVE)}]
    absent = Observation(ABSENT, {"endpoint": "e"})
    assert planner.classify_recovery("observed", {}, ["started"], journal, absent, TOMBSTONE) == "candidate"
    assert planner.classify_recovery("rolled_back", {}, ["started"], journal, absent, TOMBSTONE) is None
    assert planner.classify_recovery("rolled_back", {}, ["started"], journal, present(LIVE), TOMBSTONE) == "prior"
    changed = present({**LIVE, "topics": "u"})
    assert planner.classify_recovery("observed", {}, ["started"], journal, changed, TOMBSTONE) is None
