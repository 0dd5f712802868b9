"""Reviewed plan format 5: deterministic bytes, integrity checksum, and an offline plan never authorizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.plan import (
    Action,
    Observation,
    Plan,
    SafetyBlocker,
    StateReference,
    plan_bytes,
    read_plan_file,
    require_authorizing,
    write_plan_file,
)

TOPIC = Artifact("topic", "orders", "orders.v1", {"name": "orders.v1", "partitions": 3})


def make_plan(state: StateReference | None = None) -> Plan:
    action = Action.for_artifact("create", TOPIC, "3 partitions", Observation("absent", assumed=True))
    return Plan(
        project="p",
        environment="default",
        offline=state is None,
        manifest_checksum="sha256:" + "a" * 64,
        environment_fingerprint="sha256:" + "b" * 64,
        actions=(action,),
        safety_blockers=(SafetyBlocker("kafka_partition_reduction", "topic", "x", "no"),),
        state=state,
    )


def error_of(path: Path) -> str:
    with pytest.raises(StreamtError) as caught:
        read_plan_file(path)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == Codes.E408_PLAN_FILE_INVALID and diagnostic.suggestion
    return diagnostic.message


def test_an_offline_plan_file_records_state_null_and_reads_back_but_cannot_authorize(tmp_path: Path) -> None:
    path = tmp_path / "offline.plan.json"
    write_plan_file(make_plan(), path)
    document = json.loads(path.read_text())
    assert (document["format_version"], document["offline"], document["state"]) == (5, True, None)
    assert (
        document["is_apply_blocked"] is True and document["safety_blockers"][0]["reason"] == "kafka_partition_reduction"
    )
    reviewed = read_plan_file(path)
    assert reviewed.offline and reviewed.actions[0]["identity"] == "orders.v1"
    with pytest.raises(StreamtError) as caught:
        require_authorizing(reviewed)
    assert caught.value.diagnostics[0].code == Codes.E408_PLAN_FILE_INVALID
    assert "state: null" in caught.value.diagnostics[0].message


def test_a_plan_with_a_state_reference_can_authorize(tmp_path: Path) -> None:
    path = tmp_path / "online.plan.json"
    write_plan_file(make_plan(StateReference("local", "streamt-state://ns/p/default", 7, "sha256:c")), path)
    assert require_authorizing(read_plan_file(path)).document["state"]["serial"] == 7


def test_plan_bytes_are_canonical_and_stable() -> None:
    assert plan_bytes(make_plan()) == plan_bytes(make_plan())
    text = plan_bytes(make_plan()).decode()
    assert text.endswith("\n") and json.loads(text) == json.loads(json.dumps(json.loads(text), sort_keys=True))


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d["actions"][0].update(action="delete"), "integrity"),
        (lambda d: d.update(state={"serial": 1}), "integrity"),
        (lambda d: d["safety_blockers"].clear(), "integrity"),
        (lambda d: d.update(format_version=4), "format 4"),
        (lambda d: d.update(format_version=1), "format 1"),
        (lambda d: d.update(format_version=6), "'kafka_streams_replacement'"),
        (lambda d: d.update(kafka_streams_replacement={}), "'kafka_streams_replacement'"),
        (lambda d: d.update(format_version=7), "unsupported"),
        (lambda d: d.update(format_version=True), "unsupported"),
        (lambda d: d.update(format_version="5"), "unsupported"),
        (lambda d: d.update(format="something-else"), "not a streamt reviewed plan"),
        (lambda d: d.pop("actions"), "'actions'"),
    ],
)
def test_any_modification_or_other_version_is_e408(tmp_path: Path, edit: object, expected: str) -> None:
    path = tmp_path / "plan.json"
    write_plan_file(make_plan(), path)
    document = json.loads(path.read_text())
    edit(document)  # type: ignore[operator]
    path.write_text(json.dumps(document))
    assert expected in error_of(path)


@pytest.mark.parametrize("content", [b"", b"not json", b"[1, 2]", b"\xff\xfe", b'{"format": "streamt.reviewed-plan"}'])
def test_garbage_is_e408_not_a_crash(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(content)
    error_of(path)


def test_a_missing_file_is_e408(tmp_path: Path) -> None:
    assert "cannot be read" in error_of(tmp_path / "absent.json")


def test_format_6_carries_its_replacement_binding_under_the_checksum(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    binding = {"container_id": "c" * 64, "generation": 1, "offset_lower_bounds": {"0": 4}}
    write_plan_file(make_plan(), path, ("kafka_streams_replacement", binding))
    reviewed = read_plan_file(path)
    assert reviewed.document["format_version"] == 6 and reviewed.replacement == binding
    assert read_plan_file(_written(tmp_path / "five.json")).replacement is None
    document = json.loads(path.read_text())
    document["kafka_streams_replacement"]["offset_lower_bounds"]["0"] = 0  # a lower bound lowered by hand
    path.write_text(json.dumps(document))
    assert "integrity" in error_of(path)
    document.pop("kafka_streams_replacement")
    document["format_version"] = 6
    path.write_text(json.dumps(document))
    assert "'kafka_streams_replacement'" in error_of(path)


def _written(path: Path) -> Path:
    write_plan_file(make_plan(), path)
    return path
