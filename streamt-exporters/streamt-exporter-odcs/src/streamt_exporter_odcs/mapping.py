"""A parsed project -> one ODCS v3.1.0 data contract (a plain dict), without any I/O.

Every declared source and model becomes one schema object (sources first, then models, each sorted by
name). Its properties are the declared columns; for a model, contract columns are merged in by name
(a contract field that is set wins). Declared Flink SQL types map to ODCS logical types; the declared
text is kept as ``physicalType``. Nothing is invented: no SLAs, teams, roles, servers, quality rules,
SQL or runtime settings, and a declaration without columns gets no ``properties`` (W109).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from streamt.sdk import KIND_GATEWAY_RULE, Codes, Diagnostic, FlinkType, FlinkTypeError, Physical, parse_type

API_VERSION = "v3.1.0"
KIND = "DataContract"
_INTEGER_FORMATS = {"TINYINT": "i8", "SMALLINT": "i16", "INT": "i32", "BIGINT": "i64"}
_NUMBER_FORMATS = {"FLOAT": "f32", "DOUBLE": "f64"}


@attrs.frozen
class Mapped:
    document: dict[str, Any]
    warnings: tuple[Diagnostic, ...]
    problems: tuple[str, ...]


@attrs.frozen
class _Column:
    name: str
    type: str | None
    description: str | None
    classification: str | None
    required: bool


def declared_columns(declaration: Any) -> list[_Column]:
    """The declared columns of a source or model, with a model's contract columns merged in by name."""
    columns = {
        c.name: _Column(c.name, c.type, c.description, c.classification, _required(c)) for c in declaration.columns
    }
    contract = getattr(declaration, "contract", None)
    for c in contract.columns if contract is not None else ():
        base = columns.get(c.name, _Column(c.name, None, None, None, False))
        columns[c.name] = _Column(
            c.name,
            c.type if c.type is not None else base.type,
            c.description if c.description is not None else base.description,
            c.classification if c.classification is not None else base.classification,
            _required(c) or base.required,
        )
    return list(columns.values())


def _required(column: Any) -> bool:
    return bool(column.required) or column.nullable is False


def build_contract(
    project: Any, contract_id: str, status: str, version: str, physical: Mapping[str, Physical]
) -> Mapped:
    problems: list[str] = []
    warnings: list[Diagnostic] = []
    document: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "id": contract_id,
        "name": project.name,
        "version": version,
        "status": status,
    }
    if project.info.description:
        document["description"] = {"purpose": project.info.description}
    objects = []
    for kind, declarations in (("source", project.sources), ("model", project.models)):
        for declaration in sorted(declarations, key=lambda d: d.name):
            obj = _schema_object(kind, declaration, physical.get(declaration.name), problems)
            if "properties" not in obj:
                warnings.append(
                    Diagnostic(
                        Codes.W109_ODCS_SCHEMA_INCOMPLETE,
                        f"The {kind} '{declaration.name}' declares no columns; its ODCS object has no properties.",
                        f"Declare `columns` on the {kind} to export its schema.",
                        details={"kind": kind, "name": declaration.name},
                    )
                )
            objects.append(obj)
    document["schema"] = objects
    return Mapped(document, tuple(warnings), tuple(problems))


def _schema_object(kind: str, declaration: Any, resource: Physical | None, problems: list[str]) -> dict[str, Any]:
    obj: dict[str, Any] = {"id": f"{kind}_{declaration.name}", "name": declaration.name}
    # The compiled physical name; a sink writes into another system and has no readable topic.
    if resource is not None and resource.topic is not None:
        obj["physicalName"] = resource.topic
        obj["physicalType"] = "virtual_topic" if resource.kind == KIND_GATEWAY_RULE else "topic"
    obj["logicalType"] = "object"
    if declaration.description:
        obj["description"] = declaration.description
    if declaration.tags:
        obj["tags"] = list(declaration.tags)
    custom = [{"property": "streamtResourceType", "value": kind}]
    if kind == "model":
        custom.append({"property": "streamtMaterialization", "value": declaration.materialized})
        if declaration.contract is not None:
            status = "enforced" if declaration.contract.enforced else "declared"
            custom.append({"property": "streamtContractStatus", "value": status})
    obj["customProperties"] = custom
    primary_key = list(getattr(declaration, "primary_key", ()))
    properties = []
    for column in declared_columns(declaration):
        where = f"{kind} '{declaration.name}' column '{column.name}'"
        prop = _property(column, where, problems)
        if column.name in primary_key:
            prop["primaryKey"] = True
            prop["primaryKeyPosition"] = primary_key.index(column.name) + 1
        properties.append(prop)
    if properties:
        obj["properties"] = properties
    return obj


def _property(column: _Column, where: str, problems: list[str]) -> dict[str, Any]:
    prop: dict[str, Any] = {"name": column.name}
    required = column.required
    if column.type is not None:
        try:
            parsed = parse_type(column.type)
        except FlinkTypeError as exc:
            problems.append(f"{where}: type {column.type!r} cannot be mapped ({exc}).")
        else:
            prop.update(_logical(parsed))
            prop["physicalType"] = column.type.strip()
            required = required or not parsed.nullable
    if required:
        prop["required"] = True
    if column.description:
        prop["description"] = column.description
    if column.classification:
        prop["classification"] = column.classification
    return prop


def _logical(t: FlinkType) -> dict[str, Any]:
    """ODCS ``logicalType`` (+ options, items or nested properties) of one parsed Flink type."""
    options: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if t.name in ("STRING", "VARCHAR", "CHAR"):
        logical = "string"
        if t.params:
            options["maxLength"] = t.params[0]
            if t.name == "CHAR":
                options["minLength"] = t.params[0]
    elif t.name in ("BYTES", "BINARY", "VARBINARY"):
        logical, options["format"] = "string", "binary"
    elif t.name == "BOOLEAN":
        logical = "boolean"
    elif t.name in _INTEGER_FORMATS:
        logical, options["format"] = "integer", _INTEGER_FORMATS[t.name]
    elif t.name in _NUMBER_FORMATS:
        logical, options["format"] = "number", _NUMBER_FORMATS[t.name]
    elif t.name == "DECIMAL":
        logical = "number"
    elif t.name in ("DATE", "TIME"):
        logical = t.name.lower()
    elif t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        logical, options["timezone"] = "timestamp", t.name == "TIMESTAMP_LTZ"
    elif t.name in ("ARRAY", "MULTISET"):
        logical, extra["items"] = "array", _element(t.args[0])
    elif t.name == "MAP":
        logical = "object"
    elif t.name == "ROW":
        logical = "object"
        extra["properties"] = [_field(f.name, f.type, f.description) for f in t.fields]
    else:  # parse_type only returns the names above
        raise FlinkTypeError(f"{t.name} has no ODCS mapping")
    out: dict[str, Any] = {"logicalType": logical}
    if options:
        out["logicalTypeOptions"] = options
    out.update(extra)
    return out


def _element(t: FlinkType) -> dict[str, Any]:
    return {**_logical(t), "required": True} if not t.nullable else _logical(t)


def _field(name: str, t: FlinkType, description: str | None) -> dict[str, Any]:
    prop: dict[str, Any] = {"name": name, **_element(t)}
    if description:
        prop["description"] = description
    return prop
