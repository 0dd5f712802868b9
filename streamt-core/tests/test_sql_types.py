"""Declared Flink column types: parsed into a tree, or refused (never guessed)."""

from __future__ import annotations

import pytest
from streamt.sql.types import Field, FlinkType, FlinkTypeError, parse_type


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("STRING", FlinkType("STRING")),
        ("integer NOT NULL", FlinkType("INT", nullable=False)),
        ("NUMERIC(10, 2)", FlinkType("DECIMAL", (10, 2))),
        ("TIMESTAMP(3)", FlinkType("TIMESTAMP", (3,))),
        ("TIMESTAMP(6) WITHOUT TIME ZONE", FlinkType("TIMESTAMP", (6,))),
        ("TIMESTAMP(3) WITH LOCAL TIME ZONE", FlinkType("TIMESTAMP_LTZ", (3,))),
        ("DOUBLE PRECISION", FlinkType("DOUBLE")),
        ("INT ARRAY", FlinkType("ARRAY", args=(FlinkType("INT"),))),
        (
            "MAP<STRING, BIGINT NOT NULL>",
            FlinkType("MAP", args=(FlinkType("STRING"), FlinkType("BIGINT", nullable=False))),
        ),
        (
            "ROW<`a b` VARCHAR(5) 'it''s', c BOOLEAN>",
            FlinkType(
                "ROW", fields=(Field("a b", FlinkType("VARCHAR", (5,)), "it's"), Field("c", FlinkType("BOOLEAN")))
            ),
        ),
    ],
)
def test_supported_types_parse(text: str, expected: FlinkType) -> None:
    assert parse_type(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        None,
        3,
        "DECIMAL(a",
        "DECIMAL(39)",
        "DECIMAL(5, 6)",
        "VARCHAR(0)",
        "TIMESTAMP(10)",
        "STRING(3)",
        "RAW",
        "INTERVAL DAY",
        "TIMESTAMP WITH TIME ZONE",
        "ARRAY<INT",
        "MAP<INT>",
        "ROW<>",
        "ROW<a INT, a INT>",
        "INT INT",
        "INT;",
    ],
)
def test_malformed_or_unsupported_types_raise(text: object) -> None:
    with pytest.raises(FlinkTypeError):
        parse_type(text)
