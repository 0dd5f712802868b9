"""Masking policies applied inside the Flink query when no Gateway enforces them (dsl.md section 9.9).

Flink has no notion of the reader's role, so a mask applies to every consumer of the output
topic; ``for_roles`` is recorded in the job spec for review but cannot narrow it. Every
expression uses Flink 1.20 built-ins only (``SHA256``, ``MD5``, ``CHAR_LENGTH``, ``REPEAT``,
``SUBSTRING``, ``CONCAT``) and keeps the column's name and ``STRING`` type.
"""

from __future__ import annotations

from streamt_flink.ddl import quote_ident

METHODS = ("hash", "redact", "partial", "tokenize", "null")
_VISIBLE = 4  # `partial` keeps the last four characters, like a card receipt


def mask_expression(column: str, method: str) -> str:
    value = f"CAST({quote_ident(column)} AS STRING)"
    if method == "hash":
        return f"SHA256({value})"
    if method == "tokenize":
        # A stable, non-reversible token distinct from `hash` so the two cannot be joined.
        return f"MD5({value})"
    if method == "redact":
        return f"CASE WHEN {quote_ident(column)} IS NULL THEN CAST(NULL AS STRING) ELSE '****' END"
    if method == "partial":
        length = f"CHAR_LENGTH({value})"
        return (
            f"CASE WHEN {length} <= {_VISIBLE} THEN REPEAT('*', {length}) "
            f"ELSE CONCAT(REPEAT('*', {length} - {_VISIBLE}), SUBSTRING({value} FROM {length} - {_VISIBLE - 1})) END"
        )
    if method == "null":
        return "CAST(NULL AS STRING)"
    raise ValueError(f"unknown mask method {method!r}")
