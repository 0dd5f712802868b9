"""sqlparse's lexer with one regex call per token instead of one per rule.

sqlparse tries its rules (``Lexer._SQL_REGEX``, ~60 regexes) one after another at each position and
takes the first that matches; a Flink model's SQL made it the largest single cost of a compile. An
alternation of the same patterns, in the same order and with the same flags, matches what that loop
matches (a regex alternation also takes its first matching branch), so one ``match`` per token gives
the same ``(token type, text)`` stream. At an ASCII character the alternation holds only the rules that can
begin with it (``regexfirst``: a rule that cannot start there cannot match there, so the first rule to match
is the same); a word then meets ~7 rules instead of ~50. The keyword lookup is sqlparse's own, remembered
per word.
A space, a newline, ``(``, ``)`` and ``,`` (over half of a query's tokens: the whitespace rule takes one
character at a time) always lex as one character of one type; they are read from a table without a
``match`` call, once probing the combined pattern in many neighbourhoods has agreed on that type.

Where that argument would not hold, the text goes to sqlparse itself: a rule using a back-reference
or a conditional group (group numbers shift in an alternation), a text holding ``$`` or ``/*`` (the
lexer pairs dollar quotes and block comments outside its rules), a rule matching the empty string
(sqlparse fails there). ``tests/test_sqllex.py`` compares both on the project's SQL and on fuzzed text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from sqlparse import keywords, lexer
from sqlparse import tokens as T

from streamt_flink.regexfirst import first_characters

Token = tuple[Any, str]


class _Alternation:
    """Some of the rules, in their order, as one pattern; ``actions[i]`` is what group ``i`` (a whole rule) yields."""

    def __init__(self, rules: list[tuple[re.Pattern[str], Any]], flags: int) -> None:
        branches: list[str] = []
        self.actions: dict[int, Any] = {}
        group = 1
        for compiled, action in rules:
            self.actions[group] = action
            branches.append(f"({compiled.pattern})")
            group += 1 + compiled.groups
        # No rule can start here (a control character, say): a pattern that never matches, so the
        # character lexes as an error token, as sqlparse's loop has it.
        self.pattern = re.compile("|".join(branches) or "(?!)", flags)
        self.match = self.pattern.match


class _Combined:
    """The default lexer's rules as one alternation, and per ASCII character the rules that can start there."""

    def __init__(self, rules: list[tuple[re.Pattern[str], Any]], flags: int, keyword: Callable[[str], Token]) -> None:
        self.rules = rules
        self.flags = flags
        self.whole = _Alternation(rules, flags)
        self.keyword = keyword
        self.words: dict[str, Any] = {}
        self._single: dict[str, Any] | None = None
        self._starts: list[frozenset[str] | None] | None = None
        self.by_char: dict[str, _Alternation] = {}
        self._by_rules: dict[tuple[int, ...], _Alternation] = {}

    @property
    def single(self) -> dict[str, Any]:
        """The one-character tokens, probed on first use (a validate that lexes nothing never pays for it)."""
        if self._single is None:
            self._single = _single_characters(self.whole.pattern, self.whole.actions)
        return self._single

    def at(self, char: str) -> _Alternation:
        """The rules that can match at a position holding ``char``, in order (all of them past ASCII).

        A rule that cannot begin with ``char`` cannot match there, so leaving it out of the alternation
        never changes which rule matches first; most positions start a word, where 5-10 rules of ~50 remain.
        """
        found = self.by_char.get(char)
        if found is None:
            found = self.by_char[char] = self.whole if char > "\x7f" else self._alternation(char)
        return found

    def _alternation(self, char: str) -> _Alternation:
        if self._starts is None:
            self._starts = [first_characters(compiled, _ASCII) for compiled, _ in self.rules]
        chosen = tuple(i for i, starts in enumerate(self._starts) if starts is None or char in starts)
        found = self._by_rules.get(chosen)
        if found is None:
            found = self._by_rules[chosen] = _Alternation([self.rules[i] for i in chosen], self.flags)
        return found


_ASCII = "".join(map(chr, range(128)))


# Characters whose token is always that character alone, whatever surrounds it, under sqlparse 0.5-0.6's
# rules (the whitespace rule is lazy; `(`, `)` and `,` only match the punctuation rule). Each is taken
# only if the combined pattern says so in every neighbourhood below, so other rules turn the table off.
_SINGLE_CANDIDATES = " \n(),"
# What the rules look at around a token: a word, a digit, a dot or bracket (look-behinds), a parenthesis
# (look-aheads), quotes, dashes and line ends (comments, strings, newlines).
_NEIGHBOURS = ("", " ", "\n", "\r", "a", "1", ".", "(", ")", "]", "`", "'", "-", "#", "$")


def _single_characters(pattern: re.Pattern[str], actions: dict[int, Any]) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for char in _SINGLE_CANDIDATES:
        seen: set[Any] = set()
        for before in _NEIGHBOURS:
            for after in _NEIGHBOURS:
                found = pattern.match(before + char + after, len(before))
                if found is None or found.end() != len(before) + 1 or found.lastindex not in actions:
                    seen.add(None)
                else:
                    seen.add(actions[found.lastindex])
        action = seen.pop() if len(seen) == 1 else None
        if isinstance(action, T._TokenType):  # not PROCESS_AS_KEYWORD, not a disagreement
            table[char] = action
    return table


def _combine() -> _Combined | None:
    instance = lexer.Lexer.get_default_instance()
    rules = getattr(instance, "_SQL_REGEX", None)
    if not isinstance(rules, list) or not rules:
        return None
    patterns: list[tuple[re.Pattern[str], Any]] = []
    flags = None
    for rule in rules:
        match, action = rule
        compiled = getattr(match, "__self__", None)
        if not isinstance(compiled, re.Pattern) or not isinstance(compiled.pattern, str):
            return None
        if re.search(r"\\\d|\(\?P=|\(\?\(", compiled.pattern):  # back-references and conditionals
            return None
        if flags is None:
            flags = compiled.flags
        if compiled.flags != flags:
            return None
        if not (isinstance(action, T._TokenType) or action is keywords.PROCESS_AS_KEYWORD):
            return None
        patterns.append((compiled, action))
    return _Combined(patterns, flags or 0, instance.is_keyword)


_COMBINED = _combine()


def tokenize(text: str) -> Iterable[Token]:
    """``sqlparse.lexer.tokenize(text)``: the same ``(ttype, value)`` pairs."""
    combined = _COMBINED
    if combined is None or "$" in text or "/*" in text:
        return lexer.tokenize(text)
    out: list[Token] = []
    words, single, by_char, at = combined.words, combined.single, combined.by_char, combined.at
    position, length = 0, len(text)
    while position < length:
        char = text[position]
        alone = single.get(char)
        if alone is not None:
            out.append((alone, char))
            position += 1
            continue
        rules = by_char.get(char) or at(char)
        found = rules.match(text, position)
        if found is None:
            out.append((T.Error, text[position]))
            position += 1
            continue
        end = found.end()
        if end == position:
            return lexer.tokenize(text)  # an empty match: sqlparse's own behaviour, whatever it is
        value = found.group()
        action = rules.actions[found.lastindex]  # type: ignore[index]
        if action is keywords.PROCESS_AS_KEYWORD:
            ttype = words.get(value)
            if ttype is None:  # sqlparse's keyword lookup upper-cases the word itself
                ttype = words[value] = combined.keyword(value)[0]
            out.append((ttype, value))
        else:
            out.append((action, value))
        position = end
    return out
