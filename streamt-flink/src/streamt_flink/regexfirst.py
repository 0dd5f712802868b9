"""Which characters can begin a match of a regular expression (an over-approximation, never an under-one).

``sqllex`` uses it to try, at a position, only the lexer rules that can match the character found there.
The answer is read from the pattern's parse tree (``re._parser``, the tree ``re.compile`` itself builds):
the first character-consuming item of each way through the pattern decides, zero-width items (``\\b``,
look-arounds) are stepped over (they only ever refuse more), and an optional item lets the next one decide
too. Whether a character satisfies an item is asked of the regex engine itself (the item written back as a
one-character pattern, compiled with the pattern's flags), so case folding is the engine's own. Anything
this module does not recognise, a pattern that can match the empty string, or an inline flag change,
answers ``None``: "any character", which costs speed, never a different token.
"""

from __future__ import annotations

import re
from typing import Any

try:
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # another Python's layout: every rule is then tried everywhere, as before
    C = _parser = None

# A class item written back as regex text; the engine then says which characters it admits.
_CATEGORIES = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


# Python 3.11 added possessive repeats and atomic groups; absent before, hence getattr.
_REPEATS = () if C is None else (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", C.MAX_REPEAT))
_ATOMIC = None if C is None else getattr(C, "ATOMIC_GROUP", None)


class _Unknown(Exception):
    """A construct this module does not reason about: the caller answers "any character"."""


def first_characters(pattern: re.Pattern[str], alphabet: str) -> frozenset[str] | None:
    """The characters of ``alphabet`` that a match of ``pattern`` can begin with; ``None``: possibly any."""
    if _parser is None or not isinstance(pattern.pattern, str):
        return None
    try:
        tests, nullable = _sequence(list(_parser.parse(pattern.pattern, pattern.flags)))
        # Each test matches exactly one character, so scanning the alphabet finds every one admitted.
        admitted = re.compile("|".join(tests), pattern.flags).findall(alphabet) if tests else []
    except (_Unknown, re.error, TypeError, ValueError, AttributeError):
        return None
    if nullable:  # it can match the empty string anywhere, whatever comes next
        return None
    return frozenset(admitted)


def _sequence(items: list[Any]) -> tuple[list[str], bool]:
    """The one-character tests that can start ``items`` matched in a row, and whether all may match nothing."""
    tests: list[str] = []
    for op, av in items:
        found, nullable = _item(op, av)
        tests += found
        if not nullable:
            return tests, False
    return tests, True


def _item(op: Any, av: Any) -> tuple[list[str], bool]:
    if op is C.LITERAL:
        return [re.escape(chr(av))], False
    if op is C.NOT_LITERAL:
        return ["[^" + re.escape(chr(av)) + "]"], False
    if op is C.IN:
        return [_class(av)], False
    if op is C.ANY:
        return [r"(?s:.)"], False
    if op in (C.AT, C.ASSERT, C.ASSERT_NOT):  # zero-width: the next item consumes the first character
        return [], True
    if op is C.SUBPATTERN:
        _group, add_flags, del_flags, body = av
        if add_flags or del_flags:
            raise _Unknown(op)
        return _sequence(list(body))
    if op is C.BRANCH:
        tests: list[str] = []
        nullable = False
        for branch in av[1]:
            found, empty = _sequence(list(branch))
            tests += found
            nullable = nullable or empty
        return tests, nullable
    if op in _REPEATS:
        low, _high, body = av
        tests, empty = _sequence(list(body))
        return tests, empty or low == 0
    if op is _ATOMIC:
        return _sequence(list(av))
    raise _Unknown(op)  # back-references, conditionals, anything newer


def _class(items: list[Any]) -> str:
    parts: list[str] = []
    for op, av in items:
        if op is C.NEGATE:
            parts.insert(0, "^")
        elif op is C.LITERAL:
            parts.append(re.escape(chr(av)))
        elif op is C.RANGE:
            parts.append(re.escape(chr(av[0])) + "-" + re.escape(chr(av[1])))
        elif op is C.CATEGORY and str(av) in _CATEGORIES:
            parts.append(_CATEGORIES[str(av)])
        else:
            raise _Unknown(op)
    return "[" + "".join(parts) + "]"
