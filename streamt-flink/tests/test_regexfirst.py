"""``first_characters`` may answer too many characters, never too few (a rule left out would change tokens)."""

from __future__ import annotations

import re

import pytest
from streamt_flink import sqllex
from streamt_flink.regexfirst import first_characters

_ASCII = "".join(map(chr, range(128)))
# Texts around the character: what the rules' look-behinds, look-aheads and repeats look at.
_BEFORE = ("", " ", "a", "1", ".", "(", ")", "]", "\n", "`", "'")
_AFTER = ("", " ", "a", "1", "x y", " BY", "BY", "\n", "(", ")", ".", "'", "`", '"', "-", "+", ">", "#", "!", "|", "s")


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (re.compile(r"(CASE|AS)\b", re.IGNORECASE), set("CAca")),
        (re.compile(r"(?<=\.)[A-Z]\w*"), set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")),
        (re.compile(r"(?![_A-Z])-?\d+"), set("-0123456789")),
        (re.compile(r"\s+?"), set(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")),
        (re.compile(r"[^a]"), set(_ASCII) - {"a"}),
        (re.compile(r"k", re.IGNORECASE), {"k", "K"}),
        (re.compile(r"(a|b?)c"), {"a", "b", "c"}),
    ],
)
def test_first_characters_of_patterns(pattern: re.Pattern[str], expected: set[str]) -> None:
    assert first_characters(pattern, _ASCII) == expected


@pytest.mark.parametrize("pattern", [r"a*", r"\b", r"(?=x)", r"(?i:x)", r"(a)?(?(1)b|c)", r"(?:x|)"])
def test_patterns_that_can_match_nothing_or_are_not_understood_answer_any(pattern: str) -> None:
    assert first_characters(re.compile(pattern), _ASCII) is None


def test_no_lexer_rule_matches_at_a_character_left_out_of_its_first_characters() -> None:
    assert sqllex._COMBINED is not None
    for compiled, _ in sqllex._COMBINED.rules:
        starts = first_characters(compiled, _ASCII)
        if starts is None:
            continue
        for char in sorted(set(_ASCII) - starts):
            for before in _BEFORE:
                for after in _AFTER:
                    assert compiled.match(before + char + after, len(before)) is None, (compiled.pattern, char)


def test_word_positions_try_only_the_rules_that_can_start_there() -> None:
    combined = sqllex._COMBINED
    assert combined is not None
    assert len(combined.at("S").actions) <= len(combined.whole.actions) // 4
    assert combined.at("é") is combined.whole  # past ASCII: every rule
    assert combined.at("\x01").match("\x01") is None  # no rule starts there: an error token, as in sqlparse
