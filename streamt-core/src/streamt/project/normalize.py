"""Shorthands and aliases folded into one canonical shape per block (dsl.md §9.3, §19).

Each function takes the raw (interpolated) map of one declaration and returns the map that
``structure`` turns into the model class, or raises ``Conflict`` when the same fact is written in
two places with different values.
"""

from __future__ import annotations

from typing import Any

# A model's core keys also written under ``advanced``; its plugin sections (``flink``, ``sink`` ...)
# are merged the same way, by the names the loader passes in.
_MODEL_KEYS = ("topic", "event_time", "security", "materialized", "access")
# Keys stored under another field name of the model (written key -> field).
RENAMED = {"materialized": "declared_materialized", "from": "from_"}
# Keys that also take a second shape folded here (a list of hosts, ``access: {level: ...}``, a bare
# ``from: name``): their written type is not the model field's, so the JSON Schema leaves them untyped.
FOLDED_KEYS = frozenset({"bootstrap_servers", "url", "access", "from"})


class Conflict(Exception):
    def __init__(self, path: tuple[Any, ...], message: str) -> None:
        super().__init__(message)
        self.path = path


def _merge(path: tuple[Any, ...], first: Any, second: Any) -> Any:
    """Leaf-wise union of two spellings of the same block; differing leaves conflict."""
    if first is None:
        return second
    if second is None:
        return first
    if isinstance(first, dict) and isinstance(second, dict):
        merged = dict(first)
        for key, value in second.items():
            merged[key] = _merge((*path, key), first.get(key), value)
        return merged
    if first != second:
        where = ".".join(str(p) for p in path)
        raise Conflict(path, f"'{where}' is set both at the top level and under 'advanced' with different values")
    return first


def _virtual_topic(value: Any) -> Any:
    if value is True:
        return {}
    if isinstance(value, str):
        return {"name": value}
    if value is False:
        return None
    return value


def model(
    raw: dict[str, Any], model_names: set[str], source_names: set[str], sections: tuple[str, ...] = ()
) -> dict[str, Any]:
    data = {k: v for k, v in raw.items() if k not in ("advanced", "from", "connector", "materialized")}
    advanced = raw.get("advanced") if isinstance(raw.get("advanced"), dict) else {}
    assert isinstance(advanced, dict)
    if isinstance(raw.get("connector"), dict):
        legacy = raw["connector"]
        data["sink"] = _merge(("sink",), data.get("sink"), {"connector": legacy.get("type"), **_config(legacy)})
    for key in (*_MODEL_KEYS, *sections):
        top = raw.get(key) if key in _MODEL_KEYS else data.get(key)
        nested = advanced.get(key)
        # ``_merge``'s first two steps inline: most keys are written in one place or not at all.
        merged = top if nested is None else nested if top is None else _merge((key,), top, nested)
        if merged is not None:
            data[RENAMED.get(key, key)] = merged
        else:
            data.pop(key, None)
    gateway = data.get("gateway")
    if isinstance(gateway, dict) and "virtual_topic" in gateway:
        gateway = {**gateway, "virtual_topic": _virtual_topic(gateway["virtual_topic"])}
        data["gateway"] = gateway
    if advanced.get("virtual_topic") is True and not (isinstance(gateway, dict) and gateway.get("virtual_topic")):
        data["gateway"] = {**(gateway if isinstance(gateway, dict) else {}), "virtual_topic": {}}
    if isinstance(data.get("security"), dict):
        data["security"] = _security(data["security"])
    if isinstance(data.get("access"), dict):
        data["access"] = data["access"].get("level", "private")
    if "from" in raw:
        data[RENAMED["from"]] = _refs(raw["from"], model_names, source_names)
    if isinstance(data.get("ml_outputs"), dict):
        data["ml_outputs"] = {k: (v if v is not None else {}) for k, v in data["ml_outputs"].items()}
    if data.get("topic") is None:
        data.pop("topic", None)
    if data.get("executor") is None:
        data.pop("executor", None)
    return data


def _config(block: dict[str, Any]) -> dict[str, Any]:
    return {"config": block["config"]} if "config" in block else {}


def _refs(value: Any, model_names: set[str], source_names: set[str]) -> Any:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        return value
    out: list[Any] = []
    for item in items:
        if isinstance(item, str):
            # A bare name is a model first, then a source (dsl.md §9.1).
            kind = "ref" if item in model_names or item not in source_names else "source"
            out.append({kind: item})
        elif isinstance(item, dict) and "model" in item and "ref" not in item:
            out.append({"ref": item["model"]})
        else:
            out.append(item)
    return out


def _security(block: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(block.get("policies") or [], list):
        return dict(block)  # not a list: structuring names the path and the expected type
    policies = []
    for entry in block.get("policies") or []:
        if isinstance(entry, dict) and len(entry) == 1:
            (kind, body), *_ = entry.items()
            policies.append({"kind": kind, **(body if isinstance(body, dict) else {})})
        else:
            policies.append(entry)
    out = dict(block)
    if "policies" in block:
        out["policies"] = policies
    return out


def source(raw: dict[str, Any]) -> dict[str, Any]:
    data = dict(raw)
    schema = data.get("schema")
    if isinstance(schema, dict) and schema.get("fields") and not data.get("columns"):
        data["columns"] = schema["fields"]
    advanced = data.get("advanced")
    if isinstance(advanced, dict) and isinstance(advanced.get("event_time"), dict):
        data["event_time"] = _merge(("event_time",), data.get("event_time"), advanced["event_time"])
    if data.get("ownership") is None:
        data.pop("ownership", None)
    return data


def test(raw: dict[str, Any]) -> dict[str, Any]:
    data = {k: v for k, v in raw.items() if k != "description"}
    if isinstance(data.get("on_failure"), list):
        data["on_failure"] = {"actions": data["on_failure"]}
    if data.get("assertions") is None:
        data.pop("assertions", None)
    return data


def exposure(raw: dict[str, Any]) -> dict[str, Any]:
    data = dict(raw)
    for key in ("produces", "consumes", "depends_on"):
        if isinstance(data.get(key), list):
            data[key] = [{"ref": v} if isinstance(v, str) else v for v in data[key]]
    for key in ("sla", "contracts", "access", "freshness", "data_requirements"):
        if data.get(key) is None:
            data.pop(key, None)
    return data


def runtime(raw: dict[str, Any]) -> dict[str, Any]:
    data = dict(raw)
    kafka = data.get("kafka")
    # The list form is joined with ',' only when every entry is a host; otherwise structuring
    # reports the list (a map inside must never become "{'a': 1}" text).
    if isinstance(kafka, dict) and _hosts(kafka.get("bootstrap_servers")):
        data["kafka"] = {**kafka, "bootstrap_servers": ",".join(str(s) for s in kafka["bootstrap_servers"])}
    registry = data.get("schema_registry")
    if isinstance(registry, dict) and _hosts(registry.get("url")):
        data["schema_registry"] = {**registry, "url": ",".join(str(s) for s in registry["url"])}
    legacy = data.pop("gateway", None)
    if isinstance(legacy, dict):
        existing = data.get("conduktor")
        conduktor: dict[str, Any] = existing if isinstance(existing, dict) else {}
        data["conduktor"] = {**conduktor, "gateway": _merge(("gateway",), conduktor.get("gateway"), legacy)}
    block = data.get("conduktor")
    if isinstance(block, dict) and isinstance(block.get("gateway"), dict):
        gateway = dict(block["gateway"])
        if "url" in gateway:
            gateway.setdefault("admin_url", gateway.pop("url"))
            gateway.pop("url", None)
        data["conduktor"] = {**block, "gateway": gateway}
    for key in list(data):
        if data[key] is None:
            del data[key]
    return data


def _hosts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(s, (str, int)) and not isinstance(s, bool) for s in value)
