"""The error taxonomy: every code of the CLI reference is registered, documented, and well-formed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from shared_material import SHARED
from streamt.errors import Codes, ErrorCode
from streamt.plugins import get_plugins

REPO = Path(__file__).resolve().parents[2]
# CI lays shared/ beside the clone; a missing copy is a broken checkout, not a reason to skip.
SEED = SHARED / "seeds" / "000_a6453b8e0d0bc7a0.txt"
CLI_DOC = REPO / "docs" / "cli.md"
CODE = re.compile(r"\b([EW][0-9]{3}_[A-Z0-9_]+)\b")


def seed_text() -> str:
    assert SEED.is_file(), f"the CLI reference is missing: {SEED} (shared/ must sit beside the repository)"
    return SEED.read_text(encoding="utf-8")


def seed_code_tables() -> dict[str, str]:
    """code -> meaning, from the rows of the 'Structured Error Codes' tables."""
    text = seed_text()
    start = text.index("Structured Error Codes")
    end = text.index("\nExamples\n", start)
    rows = {}
    for line in text[start:end].splitlines():
        match = re.match(r"^([EW][0-9]{3}_[A-Z0-9_]+) (.+)$", line.strip())
        if match:
            rows[match.group(1)] = match.group(2)
    return rows


def test_the_seed_tables_parse_into_every_family() -> None:
    rows = seed_code_tables()
    families = {code[:2] for code in rows}
    assert families >= {"E1", "E2", "E3", "E4", "E5", "E6", "E7", "W1", "W2", "W3"}
    assert len(rows) > 70


@pytest.fixture(autouse=True)
def _plugin_codes() -> None:
    # Exporters register their own codes (E504...) when the plugins load.
    get_plugins()


def test_every_code_in_the_seed_tables_is_registered_with_a_meaning() -> None:
    missing = sorted(code for code in seed_code_tables() if code not in Codes)
    assert missing == []
    for code in seed_code_tables():
        assert Codes.get(code).meaning


def test_every_code_mentioned_anywhere_in_the_seed_is_registered() -> None:
    # Command sections mention codes that the tables omit (E428, W113...).
    mentioned = set(CODE.findall(seed_text()))
    assert sorted(mentioned - {code.code for code in Codes.all()}) == []


def test_attribute_access_returns_the_code_and_unknown_names_fail() -> None:
    assert Codes.E101_SOURCE_NOT_FOUND.code == "E101_SOURCE_NOT_FOUND"
    with pytest.raises(AttributeError):
        _ = Codes.E100_NOT_A_CODE


@pytest.mark.parametrize("bad", ["E1_SHORT", "X101_WRONG_LETTER", "E101_lower", "E101", "E1011_LONG"])
def test_malformed_codes_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        ErrorCode(bad, "meaning")


def test_a_plugin_may_add_a_code_but_not_redefine_one() -> None:
    mine = ErrorCode("E977_TEST_ONLY", "Only for this test", owner="test")
    Codes.register(mine)
    try:
        assert Codes.get("E977_TEST_ONLY") is mine
        Codes.register(mine)  # registering the same definition again is harmless
        with pytest.raises(ValueError, match="already registered"):
            Codes.register(ErrorCode("E101_SOURCE_NOT_FOUND", "hijacked", owner="test"))
    finally:
        Codes.unregister("E977_TEST_ONLY")
    assert "E977_TEST_ONLY" not in Codes
    Codes.unregister("E101_SOURCE_NOT_FOUND")  # core codes cannot be removed
    assert "E101_SOURCE_NOT_FOUND" in Codes


def test_docs_cli_lists_every_code_of_streamt_with_its_meaning() -> None:
    # Core's codes and those the streamt distributions register (exporters own E504...).
    documented = dict(re.findall(r"^\| `([EW][0-9]{3}_[A-Z0-9_]+)` \| (.+?) \|$", CLI_DOC.read_text(), re.M))
    core = {c.code: c.meaning for c in Codes.all() if c.owner.startswith("streamt-")}
    assert sorted(set(core) - set(documented)) == [], "add these to docs/cli.md"
    assert sorted(set(documented) - set(core)) == [], "docs/cli.md lists codes that are not registered"
    assert {code: documented[code] for code in core} == core
