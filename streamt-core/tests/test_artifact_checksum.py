"""An artifact's checksum is computed once and always equals the digest of its canonical spec."""

from __future__ import annotations

import gc

import attrs
from streamt import artifacts
from streamt.artifacts import Artifact, canonical_json, sha256_checksum


def test_checksum_is_the_digest_of_the_spec_and_is_remembered_per_artifact() -> None:
    first = Artifact("topic", "a", "a", {"partitions": 3, "config": {"b": "1", "a": "2"}})
    assert first.checksum == sha256_checksum(canonical_json(first.spec))
    assert first.checksum is first.checksum  # the remembered string, not a second encoding
    changed = attrs.evolve(first, spec={"partitions": 6})
    assert changed.checksum == sha256_checksum(canonical_json({"partitions": 6})) != first.checksum


def test_a_dead_artifact_leaves_nothing_behind_for_a_new_one_at_the_same_address() -> None:
    before = len(artifacts._CHECKSUMS)
    for partitions in range(200):  # freed artifacts' ids are reused at once by CPython
        artifact = Artifact("topic", "t", "t", {"partitions": partitions})
        assert artifact.checksum == sha256_checksum(canonical_json({"partitions": partitions}))
        del artifact
    gc.collect()
    assert len(artifacts._CHECKSUMS) == before
