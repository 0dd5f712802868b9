"""A parsed project -> one AsyncAPI 3.1.0 document (a plain dict), without any I/O.

The project is described as one application: it *receives* from every declared source topic and
*sends* to the topic (or Gateway virtual topic) of every model that has one; sink models write to
another system and have no channel. Ids are derived from the declaration kind and name only:

* channel ``<kind>_<name>``; operation ``receive_<kind>_<name>`` / ``send_<kind>_<name>``
* message ``<kind>_<name>.message``; payload schema ``<kind>_<name>.payload``

Payloads come only from declared columns (and, for models, contract columns merged in by name);
Kafka channel bindings only from partitions/replicas declared on the model's topic. No servers,
credentials, content types or serializers are invented.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from streamt.sdk import FlinkType, FlinkTypeError, Physical, parse_type

ASYNCAPI_VERSION = "3.1.0"
KAFKA_BINDING_VERSION = "0.5.0"
_INTEGER_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
}
_STRING_KEYS = {"STRING", "VARCHAR", "CHAR"}


@attrs.frozen
class Mapped:
    document: dict[str, Any]
    problems: tuple[str, ...]


def build_document(project: Any, physical: Mapping[str, Physical]) -> Mapped:
    problems: list[str] = []
    info: dict[str, Any] = {"title": project.name, "version": str(project.info.version)}
    if project.info.description:
        info["description"] = project.info.description
    channels: dict[str, Any] = {}
    operations: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    addresses: dict[str, str] = {}
    for kind, action, declaration, address in _channels(project, physical):
        channel_id = f"{kind}_{declaration.name}"
        message_id, schema_id = f"{channel_id}.message", f"{channel_id}.payload"
        if address in addresses:
            problems.append(f"Channels '{addresses[address]}' and '{channel_id}' both use the address '{address}'.")
        addresses.setdefault(address, channel_id)
        if channel_id in channels:
            problems.append(f"The channel id '{channel_id}' is generated twice.")
        channel: dict[str, Any] = {"address": address, "title": declaration.name}
        if declaration.description:
            channel["description"] = declaration.description
        channel["messages"] = {"message": {"$ref": f"#/components/messages/{message_id}"}}
        bindings = _kafka_binding(kind, declaration)
        if bindings:
            channel["bindings"] = {"kafka": bindings}
        channels[channel_id] = channel
        operations[f"{action}_{channel_id}"] = {
            "action": action,
            "channel": {"$ref": f"#/channels/{channel_id}"},
            "messages": [{"$ref": f"#/channels/{channel_id}/messages/message"}],
        }
        message: dict[str, Any] = {"name": declaration.name}
        payload = _payload(kind, declaration, problems)
        if payload is not None:
            schemas[schema_id] = payload
            message["payload"] = {"$ref": f"#/components/schemas/{schema_id}"}
        messages[message_id] = message
    document: dict[str, Any] = {"asyncapi": ASYNCAPI_VERSION, "info": info, "channels": channels}
    document["operations"] = operations
    components = {key: value for key, value in (("messages", messages), ("schemas", schemas)) if value}
    if components:
        document["components"] = components
    return Mapped(document, tuple(problems))


def _channels(project: Any, physical: Mapping[str, Physical]) -> list[tuple[str, str, Any, str]]:
    """A channel per source and per model that has a readable topic (the alias of a virtual topic;
    a sink has none), addressed by the compiled physical name."""
    found = [("source", "receive", s, s.topic) for s in sorted(project.sources, key=lambda s: s.name)]
    for model in sorted(project.models, key=lambda m: m.name):
        resource = physical.get(model.name)
        if resource is not None and resource.topic is not None:
            found.append(("model", "send", model, resource.topic))
    return found


def _kafka_binding(kind: str, declaration: Any) -> dict[str, Any]:
    if kind != "model" or declaration.materialized == "virtual_topic":
        return {}
    binding = {}
    if declaration.topic.partitions is not None:
        binding["partitions"] = declaration.topic.partitions
    if declaration.topic.replication_factor is not None:
        binding["replicas"] = declaration.topic.replication_factor
    return {**binding, "bindingVersion": KAFKA_BINDING_VERSION} if binding else {}


def _payload(kind: str, declaration: Any, problems: list[str]) -> dict[str, Any] | None:
    merged: dict[str, dict[str, Any]] = {}
    contract = getattr(declaration, "contract", None)
    for column in (*declaration.columns, *(contract.columns if contract is not None else ())):
        entry = merged.setdefault(column.name, {"type": None, "description": None, "required": False})
        for field in ("type", "description"):
            if getattr(column, field) is not None:
                entry[field] = getattr(column, field)
        entry["required"] = entry["required"] or bool(column.required) or column.nullable is False
    if not merged:
        return None
    properties: dict[str, Any] = {}
    required = []
    for name, entry in merged.items():
        schema: dict[str, Any] = {}
        if entry["type"] is not None:
            try:
                parsed = parse_type(entry["type"])
                schema = json_schema(parsed)
            except FlinkTypeError as exc:
                problems.append(f"{kind} '{declaration.name}' column '{name}': type {entry['type']!r} ({exc}).")
                continue
            schema["x-flink-type"] = entry["type"].strip()
            entry["required"] = entry["required"] or not parsed.nullable
            if entry["required"] and isinstance(schema["type"], list):
                schema["type"] = schema["type"][0]  # declared NOT NULL: null is not a value
        if entry["description"]:
            schema["description"] = entry["description"]
        properties[name] = schema
        if entry["required"]:
            required.append(name)
    payload: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        payload["required"] = required
    return payload


def json_schema(t: FlinkType) -> dict[str, Any]:
    """JSON Schema (draft-07) of one Flink type as Flink's JSON format writes it; raises when unmappable."""
    out: dict[str, Any]
    if t.name in _STRING_KEYS:
        out = {"type": "string", **({"maxLength": t.params[0]} if t.params else {})}
    elif t.name in ("BYTES", "BINARY", "VARBINARY"):
        out = {"type": "string", "contentEncoding": "base64"}
    elif t.name == "BOOLEAN":
        out = {"type": "boolean"}
    elif t.name in _INTEGER_RANGES:
        low, high = _INTEGER_RANGES[t.name]
        out = {"type": "integer", "minimum": low, "maximum": high}
    elif t.name in ("FLOAT", "DOUBLE", "DECIMAL"):
        out = {"type": "number"}
    elif t.name == "DATE":
        out = {"type": "string", "format": "date"}
    elif t.name in ("TIME", "TIMESTAMP", "TIMESTAMP_LTZ"):
        out = {"type": "string"}  # Flink's SQL text form is not RFC 3339, so no `format` is claimed
    elif t.name == "ARRAY":
        out = {"type": "array", "items": json_schema(t.args[0])}
    elif t.name == "MAP":
        if t.args[0].name not in _STRING_KEYS:
            raise FlinkTypeError("JSON object keys are strings; the MAP key type must be a string type")
        out = {"type": "object", "additionalProperties": json_schema(t.args[1])}
    elif t.name == "ROW":
        out = {"type": "object", "properties": {}}
        for field in t.fields:
            out["properties"][field.name] = json_schema(field.type)
            if field.description:
                out["properties"][field.name]["description"] = field.description
        required = [f.name for f in t.fields if not f.type.nullable]
        if required:
            out["required"] = required
    else:
        raise FlinkTypeError(f"{t.name} has no JSON payload mapping")
    if t.nullable:
        out["type"] = [out["type"], "null"]
    return out
