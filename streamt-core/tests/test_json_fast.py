"""The fast indented encoder writes what ``json.dumps(indent=2, ...)`` writes, or leaves the value to it."""

from __future__ import annotations

import collections
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamt.json_fast import Unsupported, dumps_indented, indented_pieces, sorted_compact
from streamt.json_output import _json_default, to_json_text


class _Item:
    def to_json(self) -> dict[str, Any]:
        return {"b": [1, 2.5, None], "a": 'x\u00e9\n"', "n": {}}


def _reference(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=_json_default, allow_nan=False)


_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False, allow_infinity=False)
_values = st.recursive(
    _scalars | st.just(_Item()) | st.frozensets(st.integers(), max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(_keys, inner, max_size=4),
    max_leaves=30,
)


# A shared 2-CPU machine makes generation slow at times; the data, not its speed, is the point.
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_values)
def test_same_text_as_json_dumps(value: Any) -> None:
    assert dumps_indented(value, _json_default) == _reference(value)
    for levels in (0, 1, 3):
        assert "".join(indented_pieces(value, _json_default, levels)) == _reference(value)


@pytest.mark.parametrize(
    "value",
    [float("nan"), [1, float("inf")], {1.5j: 1}, {(1, 2): 1}, collections.OrderedDict(a=1), object()],
)
def test_unusual_values_are_left_to_json_dumps(value: Any) -> None:
    with pytest.raises((Unsupported, TypeError)):
        dumps_indented(value, _json_default)


def test_envelope_text_falls_back_unchanged() -> None:
    # Non-finite numbers are shown as strings by the fallback, as before.
    assert to_json_text({"x": float("inf"), "y": [float("nan")]}) == '{\n  "x": "inf",\n  "y": [\n    "nan"\n  ]\n}\n'
    with pytest.raises(TypeError):
        to_json_text({"x": object()})
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises((ValueError, RecursionError)):
        to_json_text(cycle)


# Reused by every example below, failures included: an encoder's later calls must not see earlier ones.
_SHARED = {separators: sorted_compact(*separators) for separators in ((",", ":"), (", ", ": "))}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_values.filter(lambda v: "_Item" not in repr(v)))
def test_sorted_compact_is_the_stdlib_encoder(value: Any) -> None:
    for separators in ((",", ":"), (", ", ": ")):
        reference = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=separators).encode
        try:
            expected: Any = reference(value)
        except (TypeError, ValueError) as exc:  # mixed key types cannot be sorted; sets are not JSON
            expected = type(exc)
        for encode in (sorted_compact(*separators), _SHARED[separators]):
            try:
                got: Any = encode(value)
            except (TypeError, ValueError) as exc:
                got = type(exc)
            assert got == expected


def test_sorted_compact_reports_a_cycle_as_the_stdlib_does_and_forgets_it() -> None:
    encode = sorted_compact(",", ":")
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference detected"):
        encode(cycle)
    shared = [1]
    assert encode([shared, shared, float("inf")]) == "[[1],[1],Infinity]"


def test_sorted_compact_shared_by_threads_gives_each_its_own_encoder() -> None:
    encode = sorted_compact(",", ":")
    value = {"b": [1, {"c": None}], "a": "x"}
    expected = json.dumps(value, sort_keys=True, separators=(",", ":"))
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: [encode(value) for _ in range(200)], range(8)))
    assert {text for batch in results for text in batch} == {expected}
