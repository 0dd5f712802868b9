"""The ODCS v3.1.0 rules this exporter relies on, checked on every document before it is written.

A hand-written restatement of the published structure for the subset streamt emits (not a copy of
the official schema): the required top-level fields and their enums, closed field sets at every
level, stable ids (``^[A-Za-z0-9_-]+$``, unique), the logical-type enum and the options each logical
type allows. Every problem is returned, not just the first.
"""

from __future__ import annotations

import re
from typing import Any

from streamt_exporter_odcs.mapping import API_VERSION, KIND

_STABLE_ID = re.compile(r"^[A-Za-z0-9_-]+$")
_TOP = {"apiVersion", "kind", "id", "name", "version", "status", "description", "schema"}
_DESCRIPTION = {"purpose", "usage", "limitations"}
_OBJECT = {"id", "name", "physicalName", "physicalType", "logicalType", "description", "tags", "customProperties"}
_OBJECT_FIELDS = _OBJECT | {"properties"}
_PROPERTY = {"name", "logicalType", "logicalTypeOptions", "physicalType", "required", "description"}
_PROPERTY_FIELDS = _PROPERTY | {"classification", "primaryKey", "primaryKeyPosition", "items", "properties"}
_TIME_OPTIONS = {"format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
_OPTIONS = {
    "string": {"minLength", "maxLength", "pattern", "format"},
    "date": _TIME_OPTIONS,
    "timestamp": _TIME_OPTIONS | {"timezone", "defaultTimezone"},
    "time": _TIME_OPTIONS | {"timezone", "defaultTimezone"},
    "integer": {"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "format"},
    "number": {"multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "format"},
    "object": {"maxProperties", "minProperties", "required"},
    "array": {"maxItems", "minItems", "uniqueItems"},
    "boolean": set(),
}
_FORMATS = {
    "integer": {"i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128"},
    "number": {"f32", "f64"},
}


def metadata_problems(contract_id: str, status: str, version: str) -> list[str]:
    problems = []
    for option, value in (("--contract-id", contract_id), ("--status", status), ("contract version", version)):
        if not value.strip():
            problems.append(f"{option} must not be blank.")
        elif any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
            problems.append(f"{option} {value!r} contains control characters.")
    return problems


def document_problems(document: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    _closed(document, _TOP, "document", problems)
    for field in ("apiVersion", "kind", "id", "version", "status"):
        if not isinstance(document.get(field), str) or not document[field]:
            problems.append(f"document: {field} is required and must be a non-empty string")
    if document.get("apiVersion") != API_VERSION:
        problems.append(f"document: apiVersion must be {API_VERSION}")
    if document.get("kind") != KIND:
        problems.append(f"document: kind must be {KIND}")
    if "name" in document and not isinstance(document["name"], str):
        problems.append("document: name must be a string")
    if "description" in document:
        description = document["description"]
        if not isinstance(description, dict) or not all(isinstance(v, str) for v in description.values()):
            problems.append("document: description must be an object of strings")
        else:
            _closed(description, _DESCRIPTION, "description", problems)
    objects = document.get("schema", [])
    if not isinstance(objects, list):
        return [*problems, "document: schema must be a list"]
    ids = [str(obj.get("id")) for obj in objects if isinstance(obj, dict)]
    for duplicate in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(f"schema: id {duplicate!r} is not unique")
    for obj in objects:
        _schema_object(obj, problems)
    return problems


def _closed(value: dict[str, Any], allowed: set[str], where: str, problems: list[str]) -> None:
    problems.extend(f"{where}: {extra!r} is not an ODCS field here" for extra in sorted(set(value) - allowed))


def _schema_object(obj: Any, problems: list[str]) -> None:
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        problems.append("schema: every object needs a string name")
        return
    where = f"schema object {obj['name']!r}"
    _closed(obj, _OBJECT_FIELDS, where, problems)
    if not _STABLE_ID.match(str(obj.get("id", ""))):
        problems.append(f"{where}: id must match {_STABLE_ID.pattern}")
    if obj.get("logicalType") != "object":
        problems.append(f"{where}: logicalType must be object")
    for field in ("physicalName", "physicalType", "description"):
        if field in obj and not isinstance(obj[field], str):
            problems.append(f"{where}: {field} must be a string")
    if "tags" in obj and not all(isinstance(t, str) for t in obj["tags"]):
        problems.append(f"{where}: tags must be strings")
    for custom in obj.get("customProperties", []):
        if set(custom) != {"property", "value"} or not isinstance(custom["property"], str):
            problems.append(f"{where}: a custom property needs exactly a string property and a value")
    _properties(obj.get("properties", []), where, problems)


def _properties(properties: Any, where: str, problems: list[str]) -> None:
    if not isinstance(properties, list):
        problems.append(f"{where}: properties must be a list")
        return
    names = [p.get("name") for p in properties if isinstance(p, dict)]
    for duplicate in sorted({str(n) for n in names if names.count(n) > 1}):
        problems.append(f"{where}: property {duplicate!r} is declared twice")
    for prop in properties:
        if not isinstance(prop, dict) or not isinstance(prop.get("name"), str) or not prop["name"]:
            problems.append(f"{where}: every property needs a non-empty string name")
            continue
        _property(prop, f"{where} property {prop['name']!r}", problems, named=True)


def _property(prop: dict[str, Any], where: str, problems: list[str], *, named: bool) -> None:
    _closed(
        prop,
        _PROPERTY_FIELDS if named else _PROPERTY_FIELDS - {"name", "primaryKey", "primaryKeyPosition"},
        where,
        problems,
    )
    logical = prop.get("logicalType")
    if logical is not None and logical not in _OPTIONS:
        problems.append(f"{where}: logicalType {logical!r} is not an ODCS logical type")
    for field in ("required", "primaryKey"):
        if field in prop and not isinstance(prop[field], bool):
            problems.append(f"{where}: {field} must be a boolean")
    position = prop.get("primaryKeyPosition", 1)
    if not isinstance(position, int) or isinstance(position, bool) or position < 1:
        problems.append(f"{where}: primaryKeyPosition must be an integer >= 1")
    for field in ("physicalType", "description", "classification"):
        if field in prop and not isinstance(prop[field], str):
            problems.append(f"{where}: {field} must be a string")
    options = prop.get("logicalTypeOptions", {})
    if not isinstance(options, dict) or (options and logical not in _OPTIONS):
        problems.append(f"{where}: logicalTypeOptions need a known logicalType")
    elif logical in _OPTIONS:
        _closed(options, _OPTIONS[logical], f"{where} logicalTypeOptions", problems)
        if "format" in options and logical in _FORMATS and options["format"] not in _FORMATS[logical]:
            problems.append(f"{where}: format {options['format']!r} is not valid for {logical}")
        for bound in ("minLength", "maxLength"):
            if bound in options and not (isinstance(options[bound], int) and options[bound] >= 0):
                problems.append(f"{where}: {bound} must be an integer >= 0")
    if "items" in prop:
        if logical != "array" or not isinstance(prop["items"], dict):
            problems.append(f"{where}: items are only allowed on an array")
        else:
            _property(prop["items"], f"{where} items", problems, named=False)
    if "properties" in prop:
        if logical != "object":
            problems.append(f"{where}: properties are only allowed on an object")
        else:
            _properties(prop["properties"], where, problems)
