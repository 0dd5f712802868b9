"""Schema Registry subject artifacts from a source's ``schema`` block (dsl.md section 8.1).

An inline ``definition`` is registered as written (JSON schemas are
re-serialised canonically so formatting does not change the checksum). A
subject without a definition gets an Avro record generated from the declared
columns. External subjects are declaration-only: they record subject,
version and format, and are never registered.
"""

from __future__ import annotations

import json
import re
from typing import Any

from streamt.sdk import KIND_SCHEMA, KIND_TOPIC, Artifact, Codes, Column, Source, StreamtError, canonical_json

from streamt_kafka.topics import PROVIDER

_AVRO_PRIMITIVES = {
    "STRING": "string",
    "VARCHAR": "string",
    "CHAR": "string",
    "BOOLEAN": "boolean",
    "TINYINT": "int",
    "SMALLINT": "int",
    "INT": "int",
    "INTEGER": "int",
    "BIGINT": "long",
    "FLOAT": "float",
    "DOUBLE": "double",
    "BYTES": "bytes",
    "VARBINARY": "bytes",
    "BINARY": "bytes",
}
_DECIMAL = re.compile(r"^DECIMAL\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$")
_NOT_AN_AVRO_NAME = re.compile(r"[^A-Za-z0-9_]")


def subject_of(source: Source) -> str:
    assert source.schema is not None
    return source.schema.subject or f"{source.topic}-value"


def schema_artifact(source: Source) -> Artifact | None:
    schema = source.schema
    if schema is None:
        return None
    subject = subject_of(source)
    mode = source.ownership.mode
    fmt = (schema.format or "avro").upper()
    spec: dict[str, Any] = {"format": fmt, "subject": subject}
    if mode == "external":
        if schema.version is not None:
            spec["version"] = schema.version
    else:
        columns = source.columns or schema.fields
        if schema.definition is not None:
            spec["schema"] = _canonical_definition(schema.definition, fmt, source.name)
        elif columns and fmt == "AVRO":
            spec["schema"] = canonical_json(avro_record(source.topic, columns)).decode("utf-8")
        else:
            return None  # nothing to register: a subject without text is only a declaration
        if schema.compatibility:
            spec["compatibility"] = schema.compatibility.upper()
    depends = ((KIND_TOPIC, source.topic),)
    return Artifact(KIND_SCHEMA, source.name, subject, spec, ownership=mode, provider=PROVIDER, depends_on=depends)


def _canonical_definition(text: str, fmt: str, owner: str) -> str:
    if fmt == "PROTOBUF":
        return text
    try:
        return canonical_json(json.loads(text)).decode("utf-8")
    except ValueError:
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Source '{owner}': schema.definition is not valid JSON for format {fmt}",
            "Write the schema as JSON, or use format: protobuf for a .proto definition.",
        ) from None


def avro_record(topic: str, columns: tuple[Column, ...]) -> dict[str, Any]:
    """An Avro record for the declared columns; optional columns are nullable with default null."""
    fields = []
    for column in columns:
        avro_type = avro_type_of(column.type)
        if column.required:
            fields.append({"name": column.name, "type": avro_type})
        else:
            fields.append({"default": None, "name": column.name, "type": ["null", avro_type]})
    name = _NOT_AN_AVRO_NAME.sub("_", topic)
    if not name or name[0].isdigit():
        name = "_" + name
    return {"fields": fields, "name": name, "type": "record"}


def avro_type_of(flink_type: str | None) -> Any:
    text = (flink_type or "STRING").strip().upper()
    base = text.split("(")[0].strip()
    if base in _AVRO_PRIMITIVES:
        return _AVRO_PRIMITIVES[base]
    if base.startswith("TIMESTAMP"):
        return {"logicalType": "timestamp-millis", "type": "long"}
    if base == "DATE":
        return {"logicalType": "date", "type": "int"}
    if base == "TIME":
        return {"logicalType": "time-millis", "type": "int"}
    decimal = _DECIMAL.match(text)
    if decimal:
        return {
            "logicalType": "decimal",
            "precision": int(decimal.group(1)),
            "scale": int(decimal.group(2) or 0),
            "type": "bytes",
        }
    return "string"  # ARRAY, MAP, ROW ... travel as JSON text until typed schemas are declared
