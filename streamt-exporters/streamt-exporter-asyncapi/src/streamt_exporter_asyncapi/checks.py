"""The AsyncAPI 3.1.0 rules this exporter relies on, checked on every document before it is printed.

A hand-written restatement of the published structure for the subset streamt emits (not a copy of the
official schema): required fields, closed field sets, the ``action`` enum, identifier patterns
(channel and operation keys ``^[A-Za-z0-9_-]+$``, component keys ``^[A-Za-z0-9._-]+$``), Kafka
channel binding 0.5.0 fields, local ``$ref`` targets that exist, operation messages that belong to the
operation's channel, and JSON Schema payload keywords. Every problem is returned, not just the first.
"""

from __future__ import annotations

import re
from typing import Any

from streamt_exporter_asyncapi.mapping import ASYNCAPI_VERSION, KAFKA_BINDING_VERSION

_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_COMPONENT_KEY = re.compile(r"^[A-Za-z0-9._-]+$")
_TOP = {"asyncapi", "info", "channels", "operations", "components"}
_INFO = {"title", "version", "description"}
_CHANNEL = {"address", "title", "description", "messages", "bindings"}
_OPERATION = {"action", "channel", "messages"}
_MESSAGE = {"name", "payload"}
_KAFKA_CHANNEL = {"partitions", "replicas", "bindingVersion"}
_SCHEMA = {
    "type", "properties", "required", "items", "additionalProperties", "description", "maxLength", "minimum",
    "maximum", "format", "contentEncoding", "x-flink-type",
}  # fmt: skip
_TYPES = {"string", "boolean", "integer", "number", "array", "object", "null"}


def document_problems(document: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    _closed(document, _TOP, "document", problems)
    if document.get("asyncapi") != ASYNCAPI_VERSION:
        problems.append(f"document: asyncapi must be {ASYNCAPI_VERSION}")
    info = document.get("info")
    if not isinstance(info, dict) or not all(isinstance(info.get(f), str) for f in ("title", "version")):
        problems.append("info: title and version are required strings")
    else:
        _closed(info, _INFO, "info", problems)
    for key, channel in document.get("channels", {}).items():
        _channel(document, key, channel, problems)
    for key, operation in document.get("operations", {}).items():
        _operation(document, key, operation, problems)
    components = document.get("components", {})
    _closed(components, {"messages", "schemas"}, "components", problems)
    for section in ("messages", "schemas"):
        for key in components.get(section, {}):
            if not _COMPONENT_KEY.match(key):
                problems.append(f"components.{section}: key {key!r} must match {_COMPONENT_KEY.pattern}")
    for key, message in components.get("messages", {}).items():
        where = f"message {key!r}"
        _closed(message, _MESSAGE, where, problems)
        if "payload" in message:
            _resolve(document, message["payload"], where, problems)
    for key, schema in components.get("schemas", {}).items():
        _schema(schema, f"schema {key!r}", problems)
    addresses = [c.get("address") for c in document.get("channels", {}).values()]
    for duplicate in sorted({str(a) for a in addresses if addresses.count(a) > 1}):
        problems.append(f"channels: address {duplicate!r} is used by more than one channel")
    return problems


def _closed(value: Any, allowed: set[str], where: str, problems: list[str]) -> None:
    if not isinstance(value, dict):
        problems.append(f"{where}: must be an object")
        return
    problems.extend(f"{where}: {extra!r} is not an AsyncAPI field here" for extra in sorted(set(value) - allowed))


def _resolve(document: dict[str, Any], ref: Any, where: str, problems: list[str]) -> Any:
    pointer = ref.get("$ref") if isinstance(ref, dict) and set(ref) == {"$ref"} else None
    if not isinstance(pointer, str) or not pointer.startswith("#/"):
        problems.append(f"{where}: expected a local reference object")
        return None
    target: Any = document
    for part in pointer[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(target, dict) or part not in target:
            problems.append(f"{where}: reference {pointer!r} does not resolve")
            return None
        target = target[part]
    return target


def _channel(document: dict[str, Any], key: str, channel: Any, problems: list[str]) -> None:
    where = f"channel {key!r}"
    if not _KEY.match(key):
        problems.append(f"{where}: id must match {_KEY.pattern}")
    _closed(channel, _CHANNEL, where, problems)
    if not isinstance(channel, dict):
        return
    if not isinstance(channel.get("address"), str) or not channel["address"]:
        problems.append(f"{where}: address must be a non-empty string")
    for message_key, ref in channel.get("messages", {}).items():
        if not _KEY.match(message_key):
            problems.append(f"{where}: message key {message_key!r} must match {_KEY.pattern}")
        _resolve(document, ref, f"{where} message {message_key!r}", problems)
    bindings = channel.get("bindings", {})
    _closed(bindings, {"kafka"}, f"{where} bindings", problems)
    if "kafka" in bindings:
        kafka = bindings["kafka"]
        _closed(kafka, _KAFKA_CHANNEL, f"{where} kafka binding", problems)
        if kafka.get("bindingVersion") != KAFKA_BINDING_VERSION:
            problems.append(f"{where}: kafka bindingVersion must be {KAFKA_BINDING_VERSION}")
        for field in ("partitions", "replicas"):
            value = kafka.get(field, 1)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                problems.append(f"{where}: kafka {field} must be an integer >= 1")


def _operation(document: dict[str, Any], key: str, operation: Any, problems: list[str]) -> None:
    where = f"operation {key!r}"
    if not _KEY.match(key):
        problems.append(f"{where}: id must match {_KEY.pattern}")
    _closed(operation, _OPERATION, where, problems)
    if not isinstance(operation, dict):
        return
    if operation.get("action") not in ("send", "receive"):
        problems.append(f"{where}: action must be send or receive")
    channel = _resolve(document, operation.get("channel"), f"{where} channel", problems)
    channel_ref = operation.get("channel", {}).get("$ref", "")
    for ref in operation.get("messages", []):
        _resolve(document, ref, f"{where} message", problems)
        if channel is not None and not str(ref.get("$ref", "")).startswith(f"{channel_ref}/messages/"):
            problems.append(f"{where}: a message does not belong to the operation's channel")


def _schema(schema: Any, where: str, problems: list[str]) -> None:
    _closed(schema, _SCHEMA, where, problems)
    if not isinstance(schema, dict):
        return
    types = schema.get("type", [])
    for name in types if isinstance(types, list) else [types]:
        if name not in _TYPES:
            problems.append(f"{where}: type {name!r} is not a JSON Schema type")
    for name, sub in schema.get("properties", {}).items():
        _schema(sub, f"{where}.{name}", problems)
    for keyword in ("items", "additionalProperties"):
        if keyword in schema:
            _schema(schema[keyword], f"{where} {keyword}", problems)
    required = schema.get("required", [])
    if not isinstance(required, list) or not set(required) <= set(schema.get("properties", {})):
        problems.append(f"{where}: required names must be declared properties")
