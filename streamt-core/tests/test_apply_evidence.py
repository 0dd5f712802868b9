"""Record attributes, journaled progress evidence and the evidence.requires gate (real local state files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamt.apply.executor import desired_records, execute
from streamt.apply.gates import refuse_unauthorized
from streamt.apply.outcome import DONE, UNKNOWN, Outcome
from streamt.artifacts import Artifact
from streamt.errors import StreamtError
from streamt.plan.model import CREATE, Action, Observation, Plan
from streamt.state.local import LocalStateBackend
from streamt.state.records import OperationControl, OwnershipRecord, OwnershipState

JOB = Artifact("flink_job", "agg", "agg", {"statements": ["INSERT x"]})


def _backend(tmp_path: Path) -> LocalStateBackend:
    return LocalStateBackend(project_dir=tmp_path, project="p", env="dev")


def _plan(*actions: Action) -> Plan:
    return Plan("p", "dev", False, "sha256:m", "sha256:e", actions)


def _create(**evidence: Any) -> Action:
    return Action.for_artifact(CREATE, JOB, "", Observation("absent"), **evidence)


class Journaling:
    kinds = ("flink_job",)
    max_batch = 1
    writes_evidence = True

    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome

    def apply(self, action: str, pairs: list[Any], journal: Any) -> dict[str, Outcome]:
        for _, artifact in pairs:
            journal(artifact.identity, {"savepoint": "file:/sp/1"})
        return {artifact.identity: self.outcome for _, artifact in pairs}

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        return False


def test_a_record_without_attributes_keeps_its_document_bytes() -> None:
    record = OwnershipRecord("streamt://p/dev/topic/t", "topic", "t", "t", "managed", "sha256:c", "streamt-kafka")
    assert "attributes" not in record.to_json()
    state = OwnershipState("s", "streamt-state://local/p/dev", 1, (record,))
    assert OwnershipState.from_document(state.to_document(), state.address) == state
    with_facts = OwnershipRecord(**{**record.to_json(), "attributes": {"job_id": "j1"}})
    again = OwnershipState.from_document(
        OwnershipState("s", state.address, 1, (with_facts,)).to_document(), state.address
    )
    assert again.records[0].attributes == {"job_id": "j1"}


def test_journaled_evidence_is_durable_and_read_back(tmp_path: Path) -> None:
    backend = _backend(tmp_path)
    with backend.operation_lock(), pytest.raises(StreamtError):
        execute(_plan(_create()), {(JOB.kind, JOB.identity): JOB}, {"flink_job": Journaling(Outcome(UNKNOWN))}, backend)
    control = backend.read_control()
    assert [(p.outcome, p.evidence) for p in control.progress] == [
        ("started", None),
        ("started", {"savepoint": "file:/sp/1"}),
        ("unknown", None),
    ]
    document = json.loads(backend.control_path.read_text())
    assert "evidence" not in document["progress"][0] and OperationControl.from_document(document) == control


def test_a_done_outcome_sets_the_record_attributes(tmp_path: Path) -> None:
    backend = _backend(tmp_path)
    deployer = Journaling(Outcome(DONE, attributes={"job_id": "j9"}))
    with backend.operation_lock():
        execute(_plan(_create()), {(JOB.kind, JOB.identity): JOB}, {"flink_job": deployer}, backend)
    (record,) = backend.read_state().records
    assert record.attributes == {"job_id": "j9"}


def test_records_keep_their_attributes_unless_the_action_or_deployer_says_otherwise() -> None:
    previous = OwnershipState(
        "s",
        "a",
        1,
        (OwnershipRecord("streamt://p/dev/flink_job/agg", "flink_job", "agg", "agg", "managed", "c", "", {"k": 1}),),
    )
    noop = Action.for_artifact("noop", JOB, "", Observation("present"))
    assert desired_records(_plan(noop), previous)[0].attributes == {"k": 1}
    told = Action.for_artifact("noop", JOB, "", Observation("present"), record_attributes={"k": 2})
    assert desired_records(_plan(told), previous)[0].attributes == {"k": 2}
    assert desired_records(_plan(told), previous, {"agg": {"k": 3}})[0].attributes == {"k": 3}


def test_requires_reviewed_plan_and_force() -> None:
    reviewed_only = _plan(_create(requires=["reviewed_plan"]))
    with pytest.raises(StreamtError) as caught:
        refuse_unauthorized(reviewed_only, reviewed=False, force=True)
    assert caught.value.diagnostics[0].code.code == "E418_REVIEWED_PLAN_REQUIRED"
    assert "`streamt plan --env dev --out PLAN.json`" in str(caught.value.diagnostics[0].suggestion)
    single = Plan("p", "default", False, "sha256:m", "sha256:e", (_create(requires=["reviewed_plan"]),))
    with pytest.raises(StreamtError) as caught:
        refuse_unauthorized(single, reviewed=False, force=False)
    assert "--env" not in str(caught.value.diagnostics[0].suggestion)  # a single-environment project refuses it
    refuse_unauthorized(reviewed_only, reviewed=True, force=False)
    forced = _plan(_create(requires=["reviewed_plan", "force"]))
    with pytest.raises(StreamtError) as caught:
        refuse_unauthorized(forced, reviewed=True, force=False)
    assert caught.value.diagnostics[0].code.code == "E900_USAGE_ERROR"
    refuse_unauthorized(forced, reviewed=True, force=True)
