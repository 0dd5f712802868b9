"""`apply --emit-openlineage` of a format-6 plan: the ordinary apply lifecycle around the coordinator (fakes only)."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from streamt.apply.replacement import apply_replacement
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.plan.model import Action, Observation, Plan, SafetyBlocker, StateReference
from streamt.plan.planfile import ReviewedPlan
from streamt.runlineage.run import CommandRun

OPERATION = "0000000a-0000-4000-8000-00000000000d"
STARTED_AT = "2026-12-01T12:00:00.000Z"
RUNNER = Artifact(kind="kafka_streams_job", name="m", identity="m", spec={"x": 2})
BOUND = {"application_id": "a", "input_topic": "t"}
REPLACE = Action.for_artifact("update", RUNNER, "r", Observation("present", {}), replacement=BOUND)
PLAN = Plan(
    "p", "default", False, "sha256:" + "a" * 64, "sha256:" + "b" * 64, (REPLACE,),
    (SafetyBlocker("kafka_streams_reviewed_replacement", "kafka_streams_job", "m", "reviewed"),),
    StateReference("local", "streamt-state://local/p/default", 1, "sha256:" + "c" * 64, "store"),
)  # fmt: skip
REVIEWED = ReviewedPlan(
    "f.json",
    {"kafka_streams_replacement": {**BOUND, "action": {"identity": "m"}}, "integrity": {"checksum": "sha256:1"}},
)


class Receipts:
    """A backend that keeps replacement receipts (nothing else is used before the deployer)."""

    name = "fake"

    def write_receipt(self, *_: Any) -> None: ...

    def has_receipt(self, *_: Any) -> bool:
        return False


@attrs.define
class Transport:
    events: list[Any] = attrs.field(factory=list)

    def emit(self, event: Any) -> None:
        self.events.append(event)

    def close(self, timeout: float) -> bool:
        return True


@attrs.define
class Deployer:
    """Begins the operation (the hook sees the durable intent), then succeeds or raises ``error``."""

    error: StreamtError | None = None
    seen_run_id: list[str] = attrs.field(factory=list)

    def replace(self, backend: Any, binding: Any, artifact: Any, verify: Any, path: str, env: Any, on_begin: Any):
        on_begin(attrs.make_class("Control", ["operation_id", "started_at"])(OPERATION, STARTED_AT))
        if self.error is not None:
            raise self.error
        return {"operation_id": OPERATION, "serial": 2, "state_checksum": "sha256:2", "candidate_container_id": "c"}


def replace(deployer: Deployer, run: CommandRun) -> Any:
    return apply_replacement(
        project_dir=".", env=None, compiled=attrs.make_class("Compiled", ["artifacts"])((RUNNER,)),
        reviewed=REVIEWED, plan=PLAN, backend=Receipts(), deployers={"kafka_streams_job": deployer},
        dry_run=False, warnings=(), run=run,
    )  # fmt: skip


def lifecycle(transport: Transport) -> list[tuple[str, str, str]]:
    return [(str(e.eventType.value), e.run.runId, e.job.name) for e in transport.events]


def test_a_completed_replacement_emits_start_then_complete_with_the_operation_id():
    transport = Transport()
    result = replace(Deployer(), CommandRun(transport, "ns", "p.default.apply"))
    assert result.data["operation_id"] == OPERATION and result.warnings == ()
    assert lifecycle(transport) == [("START", OPERATION, "p.default.apply"), ("COMPLETE", OPERATION, "p.default.apply")]
    assert transport.events[0].eventTime == STARTED_AT  # the durable intent's own time


@pytest.mark.parametrize("code", [Codes.E425_STATE_UNKNOWN_OUTCOME, Codes.E407_DEPLOY_ERROR])
def test_a_stopped_or_unacknowledged_replacement_emits_fail_and_raises_unchanged(code):
    transport = Transport()
    error = StreamtError(code, "lost", "resume", data={"operation_id": OPERATION, "committed": None})
    with pytest.raises(StreamtError) as raised:
        replace(Deployer(error=error), CommandRun(transport, "ns", "p.default.apply"))
    assert raised.value is error
    assert lifecycle(transport) == [("START", OPERATION, "p.default.apply"), ("FAIL", OPERATION, "p.default.apply")]


def test_a_delivery_failure_only_adds_w112():
    class Down(Transport):
        def emit(self, event: Any) -> None:
            raise ConnectionError("receiver down")

    result = replace(Deployer(), CommandRun(Down(), "ns", "p.default.apply"))
    assert result.data["committed"] is True
    assert [w.code.code for w in result.warnings] == ["W112_OPENLINEAGE_EMIT_FAILED"] * 2
