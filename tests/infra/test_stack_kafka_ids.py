"""The devstack's Kafka cluster id: what StorageTool's command line accepts (no service needed)."""

from __future__ import annotations

import uuid

import pytest
from streamt_devstack import kafka


def test_an_id_with_a_leading_dash_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    draws = iter([uuid.UUID(bytes=b"\xf8" + bytes(15)), uuid.UUID(bytes=b"\x01" * 16)])
    monkeypatch.setattr(kafka.uuid, "uuid4", lambda: next(draws))
    assert kafka._random_cluster_id() == "AQEBAQEBAQEBAQEBAQEBAQ"


def test_ids_are_kafkas_22_character_form() -> None:
    ids = {kafka._random_cluster_id() for _ in range(500)}
    assert len(ids) == 500
    assert all(len(i) == 22 and not i.startswith("-") and "=" not in i for i in ids)
