"""Bounds a sampled record must keep before it is decoded: records are data, never trusted.

Whoever writes to a topic chooses the bytes. Before a decoder allocates, the record is checked
against fixed bounds, and one that exceeds them is *undecodable* with the bound as its problem
(its test fails with that reason; the run goes on):

* at most ``MAX_RECORD_BYTES`` bytes, nested at most ``MAX_DEPTH`` levels;
* at most ``MAX_ITEMS`` array and map items in all: an Avro block count is checked against it
  *before* the items are read (13 bytes can announce 2^40 ``null`` items, each read from no byte);
  every Avro length and block is checked against the bytes that remain;
* at most ``MAX_FIELDS`` top-level fields (each becomes a column of the SQL sample table);
* no lone surrogate in a string (it cannot be written as UTF-8).
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import json_depth

MAX_RECORD_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 64
MAX_ITEMS = 100_000
MAX_FIELDS = 1_000

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_FIXED_WIDTH = {"null": 0, "boolean": 1, "float": 4, "double": 8}


class OutOfBounds(ValueError):
    """The record exceeds a bound; the message says which."""


class Malformed(ValueError):
    """The Avro payload does not follow its writer schema (it ends early, a branch or index is out of range)."""


def check_size(value: bytes) -> None:
    if len(value) > MAX_RECORD_BYTES:
        raise OutOfBounds(f"larger than {MAX_RECORD_BYTES // (1024 * 1024)} MiB")


def check_json_text(value: bytes) -> None:
    """Size and nesting of a JSON text, before it is parsed."""
    check_size(value)
    # A text cannot nest deeper than it has opening brackets; counting them is much cheaper than
    # measuring the depth, and a record has a handful.
    if value.count(b"{") + value.count(b"[") > MAX_DEPTH and json_depth(value) > MAX_DEPTH:
        raise OutOfBounds(f"nested deeper than {MAX_DEPTH} levels")


def check_json_document(text: bytes, document: dict[str, Any]) -> None:
    """``check_document`` for ``document`` parsed from the JSON ``text``, without the walk when the text
    rules its failures out: each item takes at least one byte of the text, so a text of at most
    ``MAX_ITEMS`` bytes holds no more items, and only a ``\\u`` escape or a non-ASCII byte can make a lone
    surrogate (``json`` decodes UTF-8 with ``surrogatepass``; a UTF-16 or -32 unit of ASCII bytes is
    below the surrogates)."""
    if len(text) <= MAX_ITEMS and text.isascii() and b"\\u" not in text:
        _check_fields(document)
    else:
        check_document(document)


def _check_fields(document: dict[str, Any]) -> None:
    if len(document) > MAX_FIELDS:
        raise OutOfBounds(f"more than {MAX_FIELDS} fields")


def check_document(document: dict[str, Any]) -> None:
    """Field count, item count and strings of a decoded record."""
    _check_fields(document)
    items = 0
    pending: list[Any] = [document]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            items += len(value)
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            items += len(value)
            pending.extend(value)
        elif isinstance(value, str) and not _encodable(value):
            raise OutOfBounds("a string holds a lone surrogate")
        if items > MAX_ITEMS:
            raise OutOfBounds(f"more than {MAX_ITEMS} items")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_avro(payload: bytes, schema: Any) -> None:
    """Walk ``payload`` against the writer ``schema`` (its JSON form) without building anything:
    ``OutOfBounds`` past a bound, ``Malformed`` when the bytes do not follow the schema."""
    check_size(payload)
    names: dict[str, Any] = {}
    try:
        _collect_names(schema, "", names, 0)
        reader = _AvroWalk(payload, names)
        reader.walk(schema, "", 0)
    except RecursionError:
        raise OutOfBounds(f"nested deeper than {MAX_DEPTH} levels") from None
    except (KeyError, TypeError, AttributeError):
        raise OutOfBounds("the writer schema is not one the bounds check can read") from None


def _full_name(name: str, namespace: str) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _collect_names(schema: Any, namespace: str, names: dict[str, Any], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise OutOfBounds(f"the writer schema nests deeper than {MAX_DEPTH} levels")
    if isinstance(schema, list):
        for branch in schema:
            _collect_names(branch, namespace, names, depth + 1)
        return
    if not isinstance(schema, dict):
        return
    kind = schema["type"]
    if kind in ("record", "error", "enum", "fixed"):
        full = _full_name(schema["name"], schema.get("namespace", namespace))
        names[full] = schema
        for field in schema.get("fields", ()):
            _collect_names(field["type"], full.rpartition(".")[0], names, depth + 1)
    elif kind == "array":
        _collect_names(schema["items"], namespace, names, depth + 1)
    elif kind == "map":
        _collect_names(schema["values"], namespace, names, depth + 1)
    elif isinstance(kind, dict | list):
        _collect_names(kind, namespace, names, depth + 1)


class _AvroWalk:
    def __init__(self, payload: bytes, names: dict[str, Any]) -> None:
        self.payload = payload
        self.names = names
        self.position = 0
        self.items = 0

    def long(self) -> int:
        result = shift = 0
        for _ in range(10):
            if self.position >= len(self.payload):
                raise Malformed("the Avro payload ends inside a number")
            byte = self.payload[self.position]
            self.position += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return (result >> 1) ^ -(result & 1)
            shift += 7
        raise Malformed("an Avro number is longer than 10 bytes")

    def skip(self, size: int) -> None:
        if size < 0 or self.position + size > len(self.payload):
            raise Malformed("an Avro length runs past the end of the payload")
        self.position += size

    def walk(self, schema: Any, namespace: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise OutOfBounds(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(schema, str):
            if schema not in _PRIMITIVES:
                named = self.names.get(_full_name(schema, namespace)) or self.names[schema]
                return self.walk(named, namespace, depth + 1)
            return self.primitive(schema)
        if isinstance(schema, list):
            branch = self.long()
            if not 0 <= branch < len(schema):
                raise Malformed("an Avro union branch is out of range")
            return self.walk(schema[branch], namespace, depth + 1)
        kind = schema["type"]
        if kind in ("record", "error"):
            inner = _full_name(schema["name"], schema.get("namespace", namespace)).rpartition(".")[0]
            for field in schema["fields"]:
                self.walk(field["type"], inner, depth + 1)
        elif kind == "enum":
            if not 0 <= self.long() < len(schema["symbols"]):
                raise Malformed("an Avro enum index is out of range")
        elif kind == "fixed":
            self.skip(int(schema["size"]))
        elif kind in ("array", "map"):
            self.blocks(schema, namespace, depth)
        else:  # a primitive written as {"type": ...}, with or without a logicalType
            self.walk(kind, namespace, depth + 1)
        return None

    def blocks(self, schema: dict[str, Any], namespace: str, depth: int) -> None:
        element = schema["items"] if schema["type"] == "array" else schema["values"]
        count = self.long()
        while count:
            if count < 0:  # a negative count is followed by the block's size in bytes
                count = -count
                self.long()
            self.items += count
            if self.items > MAX_ITEMS:
                raise OutOfBounds(f"more than {MAX_ITEMS} array or map items")
            for _ in range(count):
                if schema["type"] == "map":
                    self.primitive("string")
                self.walk(element, namespace, depth + 1)
            count = self.long()

    def primitive(self, kind: str) -> None:
        if kind in _FIXED_WIDTH:
            self.skip(_FIXED_WIDTH[kind])
        elif kind in ("int", "long"):
            self.long()
        else:  # bytes, string
            self.skip(self.long())
