"""Parsing the JSON files streamt wrote (plans, recovery evidence, state) without parser differentials.

Python's ``json`` keeps the last of two equal keys; other tools keep the first. A plan file with
``"actions": []`` before the real ``"actions"`` would then look empty to a reviewer's tool while
apply runs every action. Duplicate keys, ``NaN``/``Infinity`` (not JSON) and nesting too deep to
parse are therefore all refused as ``ValueError``, which readers turn into their own error code.
"""

from __future__ import annotations

import json
from typing import Any


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for key, value in pairs:
        if key in document:
            raise ValueError(f"duplicate key {key!r}")
        document[key] = value
    return document


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: bytes | str) -> Any:
    """The document in ``data`` (UTF-8 when bytes); ``ValueError`` for anything but plain, unique JSON."""
    try:
        return json.loads(data, object_pairs_hook=_unique, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None
