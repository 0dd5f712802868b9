"""Whether a declared column type change keeps every old value readable (a widening) or not.

Only changes known to be safe are widenings: a larger integer, a float to a double, more decimal
digits without fewer fractional ones, a longer or unbounded string, a finer timestamp. Anything
else, including a type that cannot be read, counts as narrowing: a consumer's reading is at stake,
so an unknown answer is treated as the unsafe one.
"""

from __future__ import annotations

import re

_TYPE = re.compile(
    r"^\s*([A-Za-z_]+(?:\s+[A-Za-z_]+)*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*(NOT\s+NULL)?\s*$", re.I
)
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_ALIASES = {"INTEGER": "INT", "LONG": "BIGINT", "BOOL": "BOOLEAN", "NUMERIC": "DECIMAL", "TEXT": "STRING"}
_FLOATS = ("FLOAT", "DOUBLE")
_STRING_MAX = 2_147_483_647


def _parse(text: str) -> tuple[str, int | None, int | None] | None:
    match = _TYPE.match(text)
    if not match:
        return None
    name = " ".join(match.group(1).upper().split())
    name = {"REAL": "FLOAT", "DOUBLE PRECISION": "DOUBLE"}.get(name, _ALIASES.get(name, name))
    first = int(match.group(2)) if match.group(2) else None
    second = int(match.group(3)) if match.group(3) else None
    return name, first, second


def _string_length(name: str, length: int | None) -> int | None:
    if name == "STRING":
        return _STRING_MAX
    if name in ("VARCHAR", "CHAR"):
        return length if length is not None else 1
    return None


def is_widening(before: str, after: str) -> bool:
    """True when every value of type ``before`` is a value of type ``after``."""
    old, new = _parse(before), _parse(after)
    if old is None or new is None:
        return False
    if old == new:
        return True
    (a, a1, a2), (b, b1, b2) = old, new
    if a in _INTEGERS and b in _INTEGERS:
        return _INTEGERS.index(b) >= _INTEGERS.index(a)
    if a in _INTEGERS and b == "DECIMAL":
        digits = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}[a]
        return (b1 or 10) - (b2 or 0) >= digits
    if a in _FLOATS and b in _FLOATS:
        return _FLOATS.index(b) >= _FLOATS.index(a)
    if a == "DECIMAL" and b == "DECIMAL":
        precision, scale = a1 or 10, a2 or 0
        new_precision, new_scale = b1 or 10, b2 or 0
        return new_scale >= scale and new_precision - new_scale >= precision - scale
    old_length, new_length = _string_length(a, a1), _string_length(b, b1)
    if old_length is not None and new_length is not None:
        return new_length >= old_length and not (a == "VARCHAR" and b == "CHAR")
    if a.startswith("TIMESTAMP") and a == b:
        return (b1 if b1 is not None else 6) >= (a1 if a1 is not None else 6)
    return False
