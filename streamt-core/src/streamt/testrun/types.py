"""Type names in ``accepted_types``: case-insensitive aliases compared in one canonical form (dsl.md §11)."""

from __future__ import annotations

from streamt.sql.types import FlinkTypeError, parse_type

ALIASES = {
    "string": "STRING",
    "str": "STRING",
    "text": "STRING",
    "varchar": "STRING",
    "long": "BIGINT",
    "int64": "BIGINT",
    "int": "INT",
    "integer": "INT",
    "int32": "INT",
    "short": "SMALLINT",
    "double": "DOUBLE",
    "float": "FLOAT",
    "bool": "BOOLEAN",
    "boolean": "BOOLEAN",
    "timestamp": "TIMESTAMP(3)",
    "date": "DATE",
    "bytes": "BYTES",
}


def canonical_type(text: object) -> str | None:
    """``long`` -> ``BIGINT``, ``Timestamp`` -> ``TIMESTAMP(3)``; ``None`` for text that is no type."""
    if not isinstance(text, str) or not text.strip():
        return None
    name = ALIASES.get(text.strip().lower(), text.strip())
    try:
        parsed = parse_type(name)
    except FlinkTypeError:
        return None
    params = f"({', '.join(str(p) for p in parsed.params)})" if parsed.params else ""
    if parsed.name in ("ARRAY", "MAP", "MULTISET", "ROW"):
        return name.strip().upper()  # compared as written: nesting is rare in tests
    return f"{parsed.name}{params}"
