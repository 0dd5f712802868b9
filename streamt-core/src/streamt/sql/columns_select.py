"""The top-level select list of the common query shapes, read without sqlparse.

``streamt.sql.columns.projection`` reads select lists with sqlparse's grouping, which costs about a
millisecond per query: at thousands of models (the docs site derives the columns of every model
that declares none) that is most of the command. Most select lists are column copies, function
calls and arithmetic, with or without aliases; this reader recognises exactly those and answers
what sqlparse answers for them. Anything else (a keyword where a name is expected, quoted names,
comments, CASE, subqueries, DISTINCT, a clause other than FROM after the list, ...) is declined
with ``None`` and read by sqlparse as before, so no answer changes: ``test_columns_select.py``
compares the two readers over the SQL of the corpus and examples and over generated select lists.
"""

from __future__ import annotations

import re
from functools import cache

import attrs


@attrs.frozen
class SelectItem:
    text: str  # the item as written, trimmed
    alias: str | None  # its AS name, or the trailing name of ``expr name``


# The tokens this reader knows; any other character declines. A number must not run into a word,
# a dot or a quote, no comment may start or end (``--``, ``/*``, ``*/``), a minus must not start a
# negative number, and there is no "%" (``%s`` is a placeholder to sqlparse): sqlparse splits those
# differently.
_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<literal>[0-9]+(?:\.[0-9]+)?(?![\w.'])|'(?:''|[^'\\])*')"
    r"|(?P<open>\()|(?P<close>\))|(?P<comma>,)|(?P<dot>\.)|(?P<star>\*(?!/))"
    r"|(?P<operator>\+|/(?!\*)|-(?![-0-9.]))"
    r"|(?P<inner>[<>=!|:])"  # only inside parentheses: comparisons and casts in a call's arguments
)
_SELECT = re.compile(r"\s*SELECT\s", re.IGNORECASE)
# Words sqlparse's lexer reads as keywords before it looks at what follows them.
_ALWAYS_KEYWORDS = frozenset({"CASE", "IN", "VALUES", "USING", "FROM", "AS"})
# Words its lexer matches by pattern (``x DESC``, ``NULLS FIRST``) that its keyword tables lack.
_PATTERN_KEYWORDS = frozenset({"ASC", "DESC", "NULLS", "STRAIGHT", "HANDLER"})
# An item as a string of one letter per token: n name, k keyword, a AS, f name before "(", g a
# parenthesised group, l literal, o operator, * star, . dot, " " whitespace.
# sqlparse takes a trailing name without AS as the alias only after a reference or a call (after
# a literal or an arithmetic expression it ends the select list), so only those shapes are read here.
_OPERAND = r"(?:l|fg|n(?:\.n)*)"
_ITEM = re.compile(
    rf"\*|n(?:\.n)*\.\*"
    rf"|(?:fg|n(?:\.n)*)(?P<implicit> n)?"
    rf"|{_OPERAND}(?: ?[o*] ?{_OPERAND})*(?P<alias> a n)?"
)


def simple_select_items(sql: str) -> list[SelectItem] | None:
    """The select list of ``sql`` item by item, or ``None`` when its shape is left to sqlparse."""
    start = _SELECT.match(sql)
    if start is None:
        return None
    tokens = _depth_zero_tokens(sql, start.end())
    if tokens is None:
        return None
    items: list[SelectItem] = []
    begin = 0
    for index in range(len(tokens) + 1):
        if index == len(tokens) or tokens[index][0] == ",":
            item = _item(tokens[begin:index])
            if item is None:
                return None
            items.append(item)
            begin = index + 1
    return items


def _depth_zero_tokens(sql: str, position: int) -> list[tuple[str, str]] | None:
    """``(letter, text)`` per token up to a top-level FROM; a parenthesised group is one ``g``."""
    out: list[tuple[str, str]] = []
    depth = 0
    group_start = 0
    while position < len(sql):
        match = _TOKEN.match(sql, position)
        if match is None:
            return None
        kind, text = match.lastgroup, match.group()
        position = match.end()
        if kind == "open":
            group_start = match.start() if depth == 0 else group_start
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                out.append(("g", sql[group_start:position]))
        elif depth > 0:
            continue
        elif kind == "name":
            letter = _name_letter(text, sql[position : position + 1])
            if letter == "k" and text.upper() == "FROM":
                break
            out.append((letter, text))
        elif kind == "inner":
            return None
        else:
            out.append((_LETTERS[kind or ""], text))
    return out if depth == 0 else None


_LETTERS = {"ws": " ", "literal": "l", "comma": ",", "dot": ".", "star": "*", "operator": "o"}


def _name_letter(word: str, following: str) -> str:
    upper = word.upper()
    if upper == "AS":
        return "a"
    if upper in _ALWAYS_KEYWORDS:
        return "k"
    # sqlparse reads a word that starts with a letter as a name when "(" or "." follows it.
    if word[0] != "_" and following == "(":
        return "f"
    if word[0] != "_" and following == ".":
        return "n"
    return "k" if upper in _keywords() else "n"


def _item(tokens: list[tuple[str, str]]) -> SelectItem | None:
    while tokens and tokens[0][0] == " ":
        tokens = tokens[1:]
    while tokens and tokens[-1][0] == " ":
        tokens = tokens[:-1]
    shape = _ITEM.fullmatch("".join(letter for letter, _ in tokens))
    if shape is None:
        return None
    alias = tokens[-1][1] if shape.group("implicit") or shape.group("alias") else None
    return SelectItem("".join(text for _, text in tokens), alias)


@cache
def _keywords() -> frozenset[str]:
    """Every word sqlparse's lexer may read as a keyword, in any dialect (a superset only declines more)."""
    from sqlparse import keywords

    words = set(_PATTERN_KEYWORDS)
    for name in dir(keywords):
        table = getattr(keywords, name)
        if name.startswith("KEYWORDS") and isinstance(table, dict):
            words.update(table)
    return frozenset(words)
