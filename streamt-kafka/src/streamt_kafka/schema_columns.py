"""Top-level columns from a registered Avro or JSON Schema (import enrichment).

Only the first level is turned into columns: nested records and objects
become ``ROW<...>``/``STRING`` types rather than extra columns. Protobuf
contributes no columns (only its subject/version reference), because its
message layout cannot be read without the full descriptor set.
"""

from __future__ import annotations

import json
from typing import Any

_AVRO = {
    "string": "STRING",
    "boolean": "BOOLEAN",
    "int": "INT",
    "long": "BIGINT",
    "float": "FLOAT",
    "double": "DOUBLE",
    "bytes": "BYTES",
    "null": "STRING",
}
_AVRO_LOGICAL = {
    "timestamp-millis": "TIMESTAMP(3)",
    "timestamp-micros": "TIMESTAMP(6)",
    "local-timestamp-millis": "TIMESTAMP(3)",
    "local-timestamp-micros": "TIMESTAMP(6)",
    "date": "DATE",
    "time-millis": "TIME(3)",
    "time-micros": "TIME(6)",
    "uuid": "STRING",
}
_JSON = {"string": "STRING", "integer": "BIGINT", "number": "DOUBLE", "boolean": "BOOLEAN"}
_JSON_FORMATS = {"date-time": "TIMESTAMP(3)", "date": "DATE", "time": "TIME(3)"}


def columns_of(fmt: str, text: str) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """``(columns, None)``, or ``((), reason)`` when the schema is not a supported shape."""
    if fmt == "PROTOBUF":
        return (), None
    try:
        document = json.loads(text)
    except ValueError:
        return (), "unparseable"
    if fmt == "AVRO":
        if (
            not isinstance(document, dict)
            or document.get("type") != "record"
            or not isinstance(document.get("fields"), list)
        ):
            return (), "not_a_record"
        return tuple((str(f["name"]), avro_type(f.get("type"))) for f in document["fields"] if _named(f)), None
    if fmt == "JSON":
        properties = document.get("properties") if isinstance(document, dict) else None
        if not isinstance(properties, dict):
            return (), "not_an_object"
        return tuple((str(name), json_type(spec)) for name, spec in properties.items()), None
    return (), "unsupported_format"


def _named(field: Any) -> bool:
    return isinstance(field, dict) and isinstance(field.get("name"), str)


def avro_type(schema: Any) -> str:
    if isinstance(schema, str):
        return _AVRO.get(schema, "STRING")  # a named type reference: its shape is not known here
    if isinstance(schema, list):
        branches = [b for b in schema if b != "null"]
        return avro_type(branches[0]) if len(branches) == 1 else "STRING"
    if not isinstance(schema, dict):
        return "STRING"
    logical = schema.get("logicalType")
    if logical == "decimal":
        return f"DECIMAL({int(schema.get('precision', 38))}, {int(schema.get('scale', 0))})"
    if logical in _AVRO_LOGICAL:
        return _AVRO_LOGICAL[logical]
    kind = schema.get("type")
    if kind == "array":
        return f"ARRAY<{avro_type(schema.get('items'))}>"
    if kind == "map":
        return f"MAP<STRING, {avro_type(schema.get('values'))}>"
    if kind == "record" and isinstance(schema.get("fields"), list):
        inner = ", ".join(f"`{f['name']}` {avro_type(f.get('type'))}" for f in schema["fields"] if _named(f))
        return f"ROW<{inner}>" if inner else "STRING"
    if kind == "fixed":
        return "BYTES"
    return _AVRO.get(kind, "STRING") if isinstance(kind, str) else "STRING"


def json_type(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "STRING"
    kind = schema.get("type")
    if isinstance(kind, list):
        branches = [k for k in kind if k != "null"]
        kind = branches[0] if len(branches) == 1 else None
    if kind == "string" and schema.get("format") in _JSON_FORMATS:
        return _JSON_FORMATS[schema["format"]]
    if kind == "array":
        return f"ARRAY<{json_type(schema.get('items'))}>"
    return _JSON.get(kind, "STRING") if isinstance(kind, str) else "STRING"
