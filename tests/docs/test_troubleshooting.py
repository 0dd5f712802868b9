"""docs/troubleshooting.md has an entry, with a cause and a next command, for every code streamt registers."""

from __future__ import annotations

import re
from pathlib import Path

from streamt.errors import Codes
from streamt.plugins import get_plugins

PAGE = Path(__file__).resolve().parents[2] / "docs" / "troubleshooting.md"


def test_every_code_has_its_cause_and_next_command() -> None:
    get_plugins()  # plugin codes (exporters, Gateway) are registered when plugins load
    entries = dict(re.findall(r"^### `([EW][0-9]{3}_[A-Z0-9_]+)`\n\n(.+?)(?=^### |\Z)", PAGE.read_text(), re.M | re.S))
    registered = {c.code for c in Codes.all() if c.owner.startswith("streamt-")}
    assert sorted(registered - set(entries)) == [], "add these to docs/troubleshooting.md"
    assert sorted(set(entries) - registered) == [], "docs/troubleshooting.md lists codes that are not registered"
    for code, body in entries.items():
        assert "*Cause:* " in body and "*Next:* " in body, code
