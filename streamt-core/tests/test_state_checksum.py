"""The ownership state's checksum is kept once known, and never carried over to a changed copy."""

from __future__ import annotations

import json

import attrs
import pytest
from streamt.artifacts import canonical_json, sha256_checksum
from streamt.state.records import OwnershipRecord, OwnershipState

ADDRESS = "streamt-state://local/payments/dev"


def _record(name: str, **attributes: object) -> OwnershipRecord:
    return OwnershipRecord(
        f"streamt://payments/dev/topic/{name}",
        "topic",
        name,
        f"{name}.v1",
        "managed",
        "sha256:" + "0" * 64,
        "streamt-kafka",
        dict(attributes),
    )


def _recomputed(state: OwnershipState) -> str:
    """What the checksum is by definition: the canonical body of a fresh copy, encoded anew."""
    document = attrs.evolve(state).to_document()
    return sha256_checksum(canonical_json({k: v for k, v in document.items() if k != "checksum"}))


def _state() -> OwnershipState:
    return OwnershipState("store", ADDRESS, 3, (_record("a", topic_id="x"), _record("b")))


def _read_back(document: dict[str, object]) -> OwnershipState:
    return OwnershipState.from_document(json.loads(json.dumps(document)), ADDRESS)


def test_a_state_read_from_its_document_keeps_the_verified_checksum() -> None:
    document = _state().to_document()
    state = _read_back(document)
    assert state._checksum == document["checksum"] == _recomputed(state)
    assert state.checksum == document["checksum"]


def test_evolved_copies_start_without_the_checksum_and_compute_their_own() -> None:
    state = _read_back(_state().to_document())
    for changed in (
        attrs.evolve(state, serial=4),
        attrs.evolve(state, records=state.records[:1]),
        attrs.evolve(state, records=(*state.records, _record("c"))),
    ):
        assert changed._checksum is None
        assert changed.checksum == _recomputed(changed) != state.checksum


def test_the_checksum_is_computed_once_and_then_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    import streamt.state.records as records

    state, calls = _state(), []
    real = records._checksum_of
    monkeypatch.setattr(records, "_checksum_of", lambda document: calls.append(1) or real(document))
    first = state.checksum
    assert state.checksum == state.to_document()["checksum"] == first == _recomputed(state)
    assert len(calls) == 2  # this state once, and _recomputed's fresh copy once


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(serial=3.0),  # int() makes it 3: another canonical byte form
        lambda d: d.update(serial=True, checksum=None),
        lambda d: d["resources"].reverse(),  # records are kept sorted: the state encodes in another order
        lambda d: d["resources"][1].update(attributes={}),  # an empty attributes key is left out on encoding
        lambda d: d.update(version=True),  # equal to 1 for ``==``, another canonical byte form
        lambda d: d.update(store_id=7),  # str() makes it "7"
        lambda d: d.update(note="x"),  # a key the state does not keep
    ],
)
def test_a_document_that_does_not_encode_back_to_itself_gets_the_recomputed_checksum(change) -> None:  # type: ignore[no-untyped-def]
    document = json.loads(json.dumps(_state().to_document()))
    change(document)
    body = {k: v for k, v in document.items() if k != "checksum"}
    document["checksum"] = sha256_checksum(canonical_json(body))  # consistent on disk, so it is accepted
    state = OwnershipState.from_document(document, ADDRESS)
    assert state.checksum == _recomputed(state)
    assert state.checksum != document["checksum"]


def test_a_record_encodes_as_attrs_asdict_did() -> None:
    @attrs.frozen
    class Fact:
        at: int

    nested = {"job": {"ids": ("a", "b"), "seen": [1, {"k": None}]}, "fact": Fact(3), "flags": frozenset({"x"})}
    for record in (_record("a"), _record("b", topic_id="x"), _record("c", **nested)):
        expected = attrs.asdict(record)
        if not record.attributes:
            del expected["attributes"]
        body = record.to_json()
        assert body == expected and list(body) == list(expected)
        assert repr(body) == repr(expected)  # the same collection types too
    body = _record("c", **nested).to_json()
    assert body["attributes"]["job"] is not nested["job"]  # a copy, as before: encoding never shares the record's


def test_a_document_streamt_wrote_keeps_its_checksum_without_being_encoded_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    document = json.loads(json.dumps(_state().to_document()))
    encoded: list[int] = []
    real = OwnershipState._document_body
    monkeypatch.setattr(OwnershipState, "_document_body", lambda self: encoded.append(1) or real(self))
    state = OwnershipState.from_document(document, ADDRESS)
    assert (state._checksum, encoded) == (document["checksum"], [])
    assert state.checksum == _recomputed(state)
