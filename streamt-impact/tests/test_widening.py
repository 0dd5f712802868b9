"""Which declared type changes widen a column (readers keep working) and which narrow or change it."""

from __future__ import annotations

import pytest
from streamt_impact.widening import is_widening


@pytest.mark.parametrize(
    ("before", "after", "widening"),
    [
        ("INT", "BIGINT", True),
        ("BIGINT", "INT", False),
        ("INTEGER", "INT", True),
        ("FLOAT", "DOUBLE", True),
        ("DOUBLE", "FLOAT", False),
        ("DECIMAL(10,2)", "DECIMAL(12,2)", True),
        ("DECIMAL(10,2)", "DECIMAL(10,1)", False),
        ("INT", "DECIMAL(12,0)", True),
        ("VARCHAR(10)", "STRING", True),
        ("STRING", "VARCHAR(10)", False),
        ("TIMESTAMP(3)", "TIMESTAMP(6)", True),
        ("TIMESTAMP(6)", "TIMESTAMP(3)", False),
        ("STRING", "BIGINT", False),
        ("ROW<a INT>", "ROW<a BIGINT>", False),  # unreadable: treated as the unsafe answer
    ],
)
def test_widening(before: str, after: str, widening: bool) -> None:
    assert is_widening(before, after) is widening
