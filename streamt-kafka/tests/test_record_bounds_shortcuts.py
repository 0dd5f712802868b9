"""The JSON shortcuts of ``record_bounds`` decide exactly as the full checks they skip.

``check_json_text`` counts brackets before measuring the depth, and ``check_json_document`` skips
the item and string walk when the text rules its failures out; both must refuse exactly what the
full checks refuse. The bounds are lowered here so that generated records land on both sides.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from streamt.sdk import json_depth
from streamt_kafka import record_bounds
from streamt_kafka.record_bounds import OutOfBounds, check_document, check_json_document, check_json_text

SMALL = {"MAX_ITEMS": 40, "MAX_DEPTH": 3, "MAX_FIELDS": 6}
CHARACTERS = ["a", "Z", " ", '"', "\\", "[", "{", "é", "\x00", "\ud800", "\udfff", "😀"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(CHARACTERS) for _ in range(rng.randrange(4)))


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(6 if depth < 5 else 4)
    if kind == 0:
        return rng.choice([None, True, 0, -7, 2.5])
    if kind in (1, 2, 3):
        return _text(rng)
    if kind == 4:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(9))]
    return {_text(rng): _value(rng, depth + 1) for _ in range(rng.randrange(9))}


def _refusal(check: Any, *args: Any) -> str | None:
    try:
        check(*args)
    except OutOfBounds as exc:
        return str(exc)
    return None


def _encodings(document: dict[str, Any]) -> list[bytes]:
    """The ways a producer may write ``document``: escaped ASCII, raw UTF-8 (lone surrogates written
    ``surrogatepass``, as json reads them back), compact, and UTF-16."""
    raw = json.dumps(document, ensure_ascii=False)
    return [
        json.dumps(document).encode(),
        json.dumps(document, separators=(",", ":")).encode(),
        raw.encode("utf-8", "surrogatepass"),
        raw.encode("utf-16-le", "surrogatepass"),
    ]


@pytest.mark.parametrize("seed", range(4))
def test_the_shortcuts_refuse_exactly_what_the_full_checks_refuse(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, bound in SMALL.items():
        monkeypatch.setattr(record_bounds, name, bound)
    rng = random.Random(seed)
    documents = [{_text(rng): _value(rng, 1) for _ in range(rng.randrange(10))} for _ in range(250)]
    outcomes = set()
    for text in (text for document in documents for text in _encodings(document)):
        parsed = json.loads(text)
        refused = _refusal(check_document, parsed)
        assert _refusal(check_json_document, text, parsed) == refused
        deep = json_depth(text) > SMALL["MAX_DEPTH"]
        assert _refusal(check_json_text, text) == (f"nested deeper than {SMALL['MAX_DEPTH']} levels" if deep else None)
        outcomes.add((refused, deep))
    assert len(outcomes) >= 5, outcomes  # the records land on both sides of every bound


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b'{"a": "\\ud800"}', "a string holds a lone surrogate"),
        (b'{"a": "\xed\xa0\x80"}', "a string holds a lone surrogate"),  # UTF-8 bytes of a surrogate
        ('{"a": "\ud800"}'.encode("utf-16-le", "surrogatepass"), "a string holds a lone surrogate"),
        (json.dumps({"xs": [0] * 100_001}).encode(), "more than 100000 items"),
        (json.dumps({"xs": "[" * 70}).encode(), None),  # brackets inside a string nest nothing
        (json.dumps({f"k{i}": 0 for i in range(1001)}).encode(), "more than 1000 fields"),
    ],
)
def test_records_the_shortcut_must_hand_to_the_full_walk(text: bytes, problem: str | None) -> None:
    document = json.loads(text)
    assert _refusal(check_json_text, text) is None
    assert _refusal(check_json_document, text, document) == problem
