"""Text output shows terminal controls from values, never obeys them (issue 28, finding 7)."""

from __future__ import annotations

import io

import pytest
from streamt.errors import Codes, Diagnostic
from streamt.output import render_text, terminal_safe
from streamt.result import Result

HOSTILE = "value=\x1b]0;PWNED\x07\x1b[2J\r\x9b31m\u202eevil\x00"


def test_every_terminal_control_is_spelled_out_and_lines_and_tabs_stay() -> None:
    shown = terminal_safe(f"a\tb\n{HOSTILE}")
    assert shown == "a\tb\nvalue=\\x1b]0;PWNED\\x07\\x1b[2J\\x0d\\x9b31m\\u202eevil\\x00"
    assert terminal_safe("plain text, é, 中文\n") == "plain text, é, 中文\n"


@pytest.mark.parametrize("colored", [False, True])
def test_the_text_renderer_escapes_the_result_and_every_diagnostic(
    colored: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnostic = Diagnostic(Codes.E407_DEPLOY_ERROR, f"failed: {HOSTILE}", f"hint {HOSTILE}", f"at {HOSTILE}")
    result = Result("test", text=f"example {HOSTILE}", errors=(diagnostic,))
    stdout, stderr = io.StringIO(), io.StringIO()
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(stderr, "isatty", lambda: colored, raising=False)
    render_text(result, stdout, stderr)
    assert "\x1b" not in stdout.getvalue() and "\x07" not in stdout.getvalue()
    written = stderr.getvalue()
    for color in ("\x1b[31m", "\x1b[0m"):
        written = written.replace(color, "")
    assert not any(c in written for c in "\x1b\x07\r\x00\x9b\u202e"), written
    assert "PWNED" in written and "PWNED" in stdout.getvalue()  # shown, not hidden
