"""A well-formedness check for generated Flink SQL (the real-parser test comes with the SQL Gateway)."""

from __future__ import annotations

from collections.abc import Callable

import pytest


def split_statements(script: str) -> list[str]:
    """Split on ``;`` outside quotes; fail on unbalanced quotes or parentheses."""
    statements, current, depth, quote = [], [], 0, None
    for char in script:
        if quote:
            current.append(char)
            if char == quote:
                quote = None  # a doubled quote re-opens on the next character: same result
            continue
        if char in "'`":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            assert depth >= 0, f"unbalanced ')' in {''.join(current)!r}"
        elif char == ";":
            assert depth == 0, f"';' inside parentheses in {''.join(current)!r}"
            statements.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    assert quote is None, "unterminated quote"
    assert depth == 0, "unbalanced '('"
    assert not "".join(current).strip(), f"text after the last ';': {''.join(current)!r}"
    return statements


@pytest.fixture
def split_sql() -> Callable[[str], list[str]]:
    return split_statements
