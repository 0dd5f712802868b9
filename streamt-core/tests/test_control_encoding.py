"""The operation-control file's bytes are ``canonical_json(to_document())``, its actions encoded once per operation."""

from __future__ import annotations

import attrs
import pytest
import streamt.state.records as records
from streamt.artifacts import canonical_json
from streamt.state.records import ActionProgress, OperationControl


def _control(actions: tuple[dict[str, object], ...]) -> OperationControl:
    return OperationControl(
        status="in_progress",
        operation_id="5f0c2a1e-0000-4000-8000-000000000001",
        operation_kind="apply",
        started_at="2026-12-01T18:00:00Z",
        base_serial=3,
        actions=actions,
    )


ACTIONS = (
    {"position": 0, "action": "create", "kind": "topic", "name": "orders", "identity": "orders.v1"},
    {"position": 1, "action": "update", "kind": "schema", "name": "ünïcødé", "identity": 's\u2028"q"', "n": None},
    {"position": 2, "action": "create", "kind": "flink_job", "nested": {"z": [1, 2.5, True], "a": {}}},
)


@pytest.mark.parametrize("actions", [(), ACTIONS[:1], ACTIONS])
def test_the_bytes_are_the_canonical_document(actions: tuple[dict[str, object], ...]) -> None:
    control = _control(actions)
    steps = [
        control,
        attrs.evolve(control, progress=(ActionProgress(0, "started"),)),
        attrs.evolve(control, progress=(ActionProgress(0, "done", {"job_id": "j-1", "path": "s3://ü"}),)),
        attrs.evolve(control, status="recovery_required", failure_code="E407_DEPLOY_ERROR"),
        attrs.evolve(control, actions=tuple(dict(a) for a in actions)),  # equal content, another tuple
        OperationControl(),
    ]
    for step in steps:
        assert step.canonical_bytes() == canonical_json(step.to_document())


def test_one_operations_writes_encode_its_actions_once(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[object] = []
    real = records.canonical_json
    monkeypatch.setattr(records, "canonical_json", lambda value: encoded.append(value) or real(value))
    control = _control(ACTIONS)
    for index in range(len(ACTIONS)):
        control = attrs.evolve(control, progress=(*control.progress, ActionProgress(index, "done")))
        control.canonical_bytes()
    assert [value for value in encoded if isinstance(value, list)] == [list(ACTIONS)]
