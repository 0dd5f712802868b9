"""Our own structural check of each event, run before anything is written.

It restates the subset of OpenLineage 2-0-2 (``DatasetEvent``/``JobEvent``) and
of the facets this exporter emits: required keys, value types, absolute URIs,
no ``run`` on a static event, a ``date-time`` event time, facets carrying
``_producer``/``_schemaURL``, schema fields with a name and 1-based ordinal
positions. It is deliberately closed: an unexpected key is a problem, so a
mapping mistake fails here rather than in a consumer. Every problem is
returned, not just the first.
"""

from __future__ import annotations

import re
from typing import Any

_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
_EVENT_KEYS = {"DatasetEvent": {"dataset"}, "JobEvent": {"job", "inputs", "outputs"}}
_BASE_KEYS = {"eventTime", "producer", "schemaURL"}
_FACET_FIELDS: dict[str, dict[str, tuple[type, bool]]] = {
    # facet key -> field -> (type, required)
    "schema": {"fields": (list, True)},
    "documentation": {"description": (str, True), "contentType": (str, False)},
    "datasetType": {"datasetType": (str, True), "subType": (str, False)},
    "jobType": {"processingType": (str, True), "integration": (str, True), "jobType": (str, False)},
}
_FIELD_KEYS = {"name", "type", "description", "ordinal_position", "fields"}


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _facets(facets: Any, where: str) -> list[str]:
    if not isinstance(facets, dict):
        return [f"{where}: facets must be an object"]
    problems = []
    for key, facet in sorted(facets.items()):
        at = f"{where}.facets.{key}"
        if key not in _FACET_FIELDS or not isinstance(facet, dict):
            problems.append(f"{at}: not a facet this exporter emits")
            continue
        for meta in ("_producer", "_schemaURL"):
            if not (isinstance(facet.get(meta), str) and _URI.match(facet[meta])):
                problems.append(f"{at}: {meta} must be an absolute URI")
        fields = _FACET_FIELDS[key]
        for extra in sorted(set(facet) - set(fields) - {"_producer", "_schemaURL"}):
            problems.append(f"{at}: unexpected field {extra!r}")
        for name, (kind, required) in fields.items():
            if name not in facet:
                if required:
                    problems.append(f"{at}: {name} is required")
            elif not isinstance(facet[name], kind):
                problems.append(f"{at}: {name} must be a {kind.__name__}")
        if key == "schema" and isinstance(facet.get("fields"), list):
            problems += _schema_fields(facet["fields"], at)
    return problems


def _schema_fields(fields: list[Any], where: str) -> list[str]:
    problems = []
    for index, field in enumerate(fields):
        at = f"{where}.fields[{index}]"
        if not isinstance(field, dict) or not _nonempty(field.get("name")):
            problems.append(f"{at}: a field needs a non-empty name")
            continue
        for extra in sorted(set(field) - _FIELD_KEYS):
            problems.append(f"{at}: unexpected key {extra!r}")
        position = field.get("ordinal_position")
        if position is not None and (isinstance(position, bool) or not isinstance(position, int) or position < 1):
            problems.append(f"{at}: ordinal_position must be an integer >= 1")
        for text in ("type", "description"):
            if text in field and not isinstance(field[text], str):
                problems.append(f"{at}: {text} must be a string")
    return problems


def _identity(value: Any, where: str, facets_allowed: bool) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: must be an object"]
    problems = []
    allowed = {"namespace", "name", "facets"} if facets_allowed else {"namespace", "name"}
    for extra in sorted(set(value) - allowed):
        problems.append(f"{where}: unexpected key {extra!r}")
    for key in ("namespace", "name"):
        if not _nonempty(value.get(key)):
            problems.append(f"{where}: {key} must be a non-empty string")
    if "facets" in value and facets_allowed:
        problems += _facets(value["facets"], where)
    return problems


def event_problems(event: dict[str, Any]) -> list[str]:
    kind = "DatasetEvent" if "dataset" in event else "JobEvent"
    problems = []
    if not str(event.get("schemaURL", "")).endswith(f"#/$defs/{kind}"):
        problems.append(f"{kind}: schemaURL must point at #/$defs/{kind}")
    for extra in sorted(set(event) - _BASE_KEYS - _EVENT_KEYS[kind]):
        problems.append(f"{kind}: unexpected key {extra!r}")
    if not (isinstance(event.get("eventTime"), str) and _DATE_TIME.match(event["eventTime"])):
        problems.append(f"{kind}: eventTime must be an RFC 3339 date-time")
    for key in ("producer", "schemaURL"):
        if not (isinstance(event.get(key), str) and _URI.match(event[key])):
            problems.append(f"{kind}: {key} must be an absolute URI")
    if kind == "DatasetEvent":
        problems += _identity(event["dataset"], "dataset", facets_allowed=True)
    else:
        problems += _identity(event.get("job"), "job", facets_allowed=True)
        for side in ("inputs", "outputs"):
            items = event.get(side, [])
            if not isinstance(items, list):
                problems.append(f"JobEvent: {side} must be an array")
                continue
            for index, item in enumerate(items):
                problems += _identity(item, f"{side}[{index}]", facets_allowed=False)
    return problems
