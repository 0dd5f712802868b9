"""The single renderer: a ``Result`` becomes text or the JSON envelope."""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any, TextIO

from streamt.errors import Diagnostic
from streamt.json_fast import indented_pieces
from streamt.result import Result

TEXT = "text"
JSON = "json"
FORMATS = (TEXT, JSON)


# Lone UTF-16 surrogates cannot be encoded as UTF-8. They reach us from paths and arguments that held
# bytes that are not UTF-8 (Python decodes those to U+DC80..U+DCFF) and from YAML "\\ud800" escapes.
_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_utf8(text: str, escape: str = "\\") -> str:
    """``text`` with every lone surrogate spelled out (``\\xff`` for an undecodable byte), so the
    stream it is written to always holds valid UTF-8, whatever its error handler. Inside JSON
    string literals the backslash itself must be escaped: pass ``escape="\\\\"``."""

    def printable(match: re.Match[str]) -> str:
        point = ord(match.group())
        return f"{escape}x{point - 0xDC00:02x}" if 0xDC80 <= point <= 0xDCFF else "\ufffd"

    return _SURROGATE.sub(printable, text)


def color_enabled(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("STREAMT_NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def to_json_text(document: Any) -> str:
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


def render(result: Result, fmt: str, stdout: TextIO, stderr: TextIO) -> int:
    """Write ``result`` and return its exit code."""
    if fmt == JSON:
        for piece in json_pieces(result.envelope()):
            stdout.write(piece)
        stdout.flush()
        return result.exit_code
    if result.text:
        text = result.text if result.text.endswith("\n") else result.text + "\n"
        stdout.write(valid_utf8(text))
        stdout.flush()
    colored = color_enabled(stderr)
    for warning in result.warnings:
        stderr.write(valid_utf8(format_diagnostic(warning, colored)) + "\n")
    for error in result.errors:
        stderr.write(valid_utf8(format_diagnostic(error, colored)) + "\n")
    stderr.flush()
    return result.exit_code


def format_diagnostic(diag: Diagnostic, colored: bool = False) -> str:
    label = "warning" if diag.is_warning else "error"
    if colored:
        label = f"\x1b[33m{label}\x1b[0m" if diag.is_warning else f"\x1b[31m{label}\x1b[0m"
    where = f" ({diag.location})" if diag.location else ""
    lines = [f"{label} {diag.code.code}: {diag.message}{where}"]
    if "operation_id" in diag.details:
        lines.append(f"  operation id: {diag.details['operation_id']}")
    if diag.suggestion:
        lines.append(f"  hint: {diag.suggestion}")
    return "\n".join(lines)
