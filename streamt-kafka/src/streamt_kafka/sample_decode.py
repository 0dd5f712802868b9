"""Decode sampled record values: JSON, or Avro/JSON framed in the Confluent wire format.

A framed value is magic byte 0, a 4-byte big-endian schema id, then the payload; the schema
comes from the registry (``/schemas/ids/<id>``, once per id). Avro payloads are read with
fastavro against that writer schema. A value that is neither a JSON object nor a decodable
framed record is *undecodable*: counted and reported by offset, never shown. So is one outside
the bounds of ``record_bounds`` (size, depth, item and field counts, lone surrogates), checked
before the decoder allocates.
"""

from __future__ import annotations

import io
import json
import struct
from typing import Any

import attrs

from streamt_kafka.record_bounds import (
    OutOfBounds,
    check_avro,
    check_document,
    check_json_document,
    check_json_text,
    check_size,
)

MAGIC = 0


@attrs.frozen
class Decoded:
    row: dict[str, Any] | None
    problem: str | None = None


@attrs.define
class Decoder:
    """Decodes values; ``schema_of(id) -> (schema_type, schema_text)`` reads the registry when needed."""

    schema_of: Any
    _parsed: dict[int, tuple[str, Any, Any]] = attrs.field(factory=dict)  # kind, fastavro's form, JSON form

    def decode(self, value: bytes | None) -> Decoded:
        if value is None:
            return Decoded(None, "tombstone (null value)")
        try:
            check_size(value)
            if len(value) >= 5 and value[0] == MAGIC:
                return self._framed(value)
            check_json_text(value)
            document = json.loads(value)
            if isinstance(document, dict):
                check_json_document(value, document)
        except OutOfBounds as exc:
            return Decoded(None, f"record out of bounds: {exc}")
        except ValueError:
            return Decoded(None, "not JSON and not registry-framed")
        if not isinstance(document, dict):
            return Decoded(None, "JSON value is not an object")
        return Decoded(document)

    def _framed(self, value: bytes) -> Decoded:
        (schema_id,) = struct.unpack(">I", value[1:5])
        try:
            kind, schema, written = self._schema(schema_id)
        except LookupError as exc:
            return Decoded(None, str(exc))
        payload = value[5:]
        if kind == "AVRO":
            from fastavro import schemaless_reader

            try:
                check_avro(payload, written)
                row = schemaless_reader(io.BytesIO(payload), schema, None)
            except OutOfBounds:
                raise
            except Exception:  # Malformed, or any of fastavro's types for corrupt bytes; the offset is what matters
                return Decoded(None, f"Avro payload does not match schema id {schema_id}")
        elif kind == "JSON":
            check_json_text(payload)
            try:
                row = json.loads(payload)
            except ValueError:
                return Decoded(None, f"JSON payload of schema id {schema_id} is not JSON")
        else:
            return Decoded(None, f"schema id {schema_id} is {kind}, which sample tests do not decode")
        if not isinstance(row, dict):
            return Decoded(None, "decoded value is not a record")
        check_document(row)
        return Decoded(row)

    def _schema(self, schema_id: int) -> tuple[str, Any, Any]:
        if schema_id not in self._parsed:
            found = self.schema_of(schema_id)
            if found is None:
                raise LookupError(f"schema id {schema_id} is not in the registry")
            kind, text = found
            written: Any = None
            parsed: Any = None
            if kind == "AVRO":
                from fastavro import parse_schema

                try:
                    check_json_text(text.encode("utf-8"))
                    written = json.loads(text)
                    parsed = parse_schema(json.loads(text))  # its own copy: the walk reads the JSON form
                except Exception:
                    raise LookupError(f"schema id {schema_id} is not a valid Avro schema") from None
            self._parsed[schema_id] = (kind, parsed, written)
        return self._parsed[schema_id]
