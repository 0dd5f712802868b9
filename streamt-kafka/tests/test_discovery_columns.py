"""Top-level columns from Avro and JSON Schema documents; Protobuf gives none."""

from __future__ import annotations

import json

from streamt_kafka.schema_columns import columns_of


def test_avro_top_level_fields_with_logical_and_nullable_types() -> None:
    schema = {
        "type": "record",
        "name": "r",
        "fields": [
            {"name": "id", "type": "string"},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
            {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}]},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "nested", "type": {"type": "record", "name": "n", "fields": [{"name": "x", "type": "int"}]}},
            {"name": "either", "type": ["int", "string"]},
        ],
    }
    columns, reason = columns_of("AVRO", json.dumps(schema))
    assert reason is None and columns == (
        ("id", "STRING"),
        ("amount", "DECIMAL(10, 2)"),
        ("at", "TIMESTAMP(3)"),
        ("tags", "ARRAY<STRING>"),
        ("nested", "ROW<`x` INT>"),
        ("either", "STRING"),
    )


def test_json_schema_properties_in_document_order() -> None:
    schema = {"type": "object", "properties": {"b": {"type": ["null", "integer"]}, "a": {"type": "number"}}}
    assert columns_of("JSON", json.dumps(schema)) == ((("b", "BIGINT"), ("a", "DOUBLE")), None)


def test_protobuf_and_unsupported_shapes() -> None:
    assert columns_of("PROTOBUF", "syntax = 'proto3';") == ((), None)
    assert columns_of("AVRO", '"string"') == ((), "not_a_record")
    assert columns_of("JSON", "[]") == ((), "not_an_object")
    assert columns_of("AVRO", "{not json") == ((), "unparseable")
