"""The JSON envelope and JSON documents as ``-o json`` writes them: indented, valid UTF-8, finite.

Imported only when JSON is written (``streamt.output.render_json`` resolves here on first use), so
that text-mode commands never import ``json``.
"""

from __future__ import annotations

import json
import math
from typing import Any, TextIO

from streamt.json_fast import indented_pieces
from streamt.output import valid_utf8
from streamt.result import Result


def render_json(result: Result, stdout: TextIO) -> int:
    """Write ``result``'s envelope as one JSON document on stdout and return its exit code."""
    for piece in json_pieces(result.envelope()):
        stdout.write(piece)
    stdout.flush()
    return result.exit_code


def to_json_text(document: Any) -> str:
    """``document`` as the JSON text streamt prints: indented by two, key order kept, ending in one newline."""
    return "".join(json_pieces(document))


def json_pieces(document: Any) -> list[str]:
    """``to_json_text``'s text in pieces, to be written one by one (a lone surrogate is one character, so
    escaping piece by piece is escaping the whole)."""
    try:
        pieces = indented_pieces(document, _json_default)
    except Exception:  # whatever the fast encoder leaves alone, json.dumps renders (or refuses) as always
        return [_dumps_text(document)]
    return [*(valid_utf8(piece, escape="\\\\") for piece in pieces), "\n"]


def _dumps_text(document: Any) -> str:
    try:
        text = json.dumps(document, indent=2, ensure_ascii=False, default=_json_default, allow_nan=False)
    except ValueError:
        # A YAML `.inf`/`.nan` passed through as data: JSON has no such numbers (Python would write the
        # invalid `Infinity`), so they are shown as the strings "inf", "-inf" and "nan".
        text = json.dumps(_finite(document), indent=2, ensure_ascii=False, default=_json_default, allow_nan=False)
    return valid_utf8(text, escape="\\\\") + "\n"


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if hasattr(value, "to_json"):
        return _finite(value.to_json())
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if hasattr(value, "to_json"):
        return value.to_json()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
