"""The single renderer: a ``Result`` becomes text (here) or the JSON envelope (``streamt.json_output``).

``render_json`` is reached through this module (``output.render_json``) but lives in
``streamt.json_output`` and is imported on first use (PEP 562), so that a text-mode command,
``streamt --help`` above all, never imports ``json``.
"""

from __future__ import annotations

import importlib
import os
import re
from typing import TYPE_CHECKING, Any, TextIO

from streamt.errors import Diagnostic
from streamt.result import Result

if TYPE_CHECKING:
    from streamt.json_output import render_json as render_json

TEXT = "text"
JSON = "json"
FORMATS = (TEXT, JSON)


# Lone UTF-16 surrogates cannot be encoded as UTF-8. They reach us from paths and arguments that held
# bytes that are not UTF-8 (Python decodes those to U+DC80..U+DCFF) and from YAML "\\ud800" escapes.
# A pattern, compiled on first use: most texts have none, and the encode check below finds that out.
_SURROGATE = "[\ud800-\udfff]"


def valid_utf8(text: str, escape: str = "\\") -> str:
    """``text`` with every lone surrogate spelled out (``\\xff`` for an undecodable byte), so the
    stream it is written to always holds valid UTF-8, whatever its error handler. Inside JSON
    string literals the backslash itself must be escaped: pass ``escape="\\\\"``."""

    try:
        text.encode("utf-8")  # fails only on a surrogate, the one thing UTF-8 cannot encode
        return text
    except UnicodeEncodeError:
        pass

    def printable(match: re.Match[str]) -> str:
        point = ord(match.group())
        return f"{escape}x{point - 0xDC00:02x}" if 0xDC80 <= point <= 0xDCFF else "\ufffd"

    return re.sub(_SURROGATE, printable, text)


# Terminal controls: C0 except newline and tab, DEL, C1, and the bidirectional overrides and isolates.
# A record value, a provider's answer or a file name holding them could retitle a terminal, clear it
# or reorder what a CI log shows ("\x1b]0;...\x07", "\x1b[2J", U+202E).
_CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"


def terminal_safe(text: str) -> str:
    """``text`` as a terminal may show it: valid UTF-8 (``valid_utf8``), and every terminal control
    character spelled out as ``\\xNN`` / ``\\uNNNN``; newlines and tabs stay. The one function every
    text rendering goes through, so whatever a value holds is shown, never obeyed."""
    text = valid_utf8(text)
    if text.isprintable() or not re.search(_CONTROL, text):
        return text
    return re.sub(_CONTROL, _spelled, text)


def _spelled(match: re.Match[str]) -> str:
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def color_enabled(stream: TextIO) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("STREAMT_NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def render_text(result: Result, stdout: TextIO, stderr: TextIO) -> int:
    """Write ``result`` for people (text on stdout, diagnostics on stderr) and return its exit code."""
    if result.text:
        text = result.text if result.text.endswith("\n") else result.text + "\n"
        stdout.write(terminal_safe(text))
        stdout.flush()
    colored = color_enabled(stderr)
    for warning in result.warnings:
        # Listed as a warning whatever its code: a plugin that failed to load (E901) did not fail this command.
        stderr.write(valid_utf8(format_diagnostic(warning, colored, as_warning=True)) + "\n")
    for error in result.errors:
        stderr.write(format_diagnostic(error, colored) + "\n")
    stderr.flush()
    return result.exit_code


def format_diagnostic(diag: Diagnostic, colored: bool = False, *, as_warning: bool = False) -> str:
    """One diagnostic as text, its parts ``terminal_safe`` (the color codes are added after)."""
    warning = as_warning or diag.is_warning
    label = "warning" if warning else "error"
    if colored:
        label = f"\x1b[33m{label}\x1b[0m" if warning else f"\x1b[31m{label}\x1b[0m"
    where = f" ({diag.location})" if diag.location else ""
    if where and diag.message.endswith(where):  # a message that names its position already (E501)
        where = ""
    # `validate --all-envs` mixes environments: each finding says which one it belongs to.
    scope = f" [{terminal_safe(str(diag.details['environment']))}]" if "environment" in diag.details else ""
    lines = [f"{label} {diag.code.code}{scope}: {terminal_safe(diag.message + where)}"]
    if "operation_id" in diag.details:
        lines.append(terminal_safe(f"  operation id: {diag.details['operation_id']}"))
    if diag.suggestion:
        lines.append(terminal_safe(f"  hint: {diag.suggestion}"))
    return "\n".join(lines)


def __getattr__(name: str) -> Any:
    if name != "render_json":
        raise AttributeError(f"module 'streamt.output' has no attribute {name!r}")
    value = importlib.import_module("streamt.json_output").render_json
    globals()[name] = value  # later lookups skip __getattr__
    return value
