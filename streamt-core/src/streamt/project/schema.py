"""The accepted keys of every project block, in the shape users write them (aliases included).

A schema node is ``ANY`` (free-form value), a ``dict`` of key -> node (a map with known keys), a
one-element ``list`` ``[node]`` (a list whose items follow node) or ``MapOf(node)`` (a map with
arbitrary keys whose values follow node). A dict node only applies when the value is a map (and a
list node when it is a list), so ``virtual_topic: true`` and ``virtual_topic: {name: x}`` both pass:
types are checked later, when structuring.
"""

from __future__ import annotations

from typing import Any

import attrs

from streamt.errors import did_you_mean

ANY: None = None


@attrs.frozen
class MapOf:
    value: Any


@attrs.frozen
class UnknownKey:
    path: tuple[Any, ...]
    key: str
    suggestion: str | None

    @property
    def dotted(self) -> str:
        return dotted((*self.path, self.key))


def dotted(path: tuple[Any, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _leaves(*names: str) -> dict[str, Any]:
    return dict.fromkeys(names, ANY)


COLUMN = _leaves("name", "type", "description", "classification", "required", "proctime", "nullable")
OWNERSHIP = _leaves("mode")
EVENT_TIME = {
    "column": ANY,
    "watermark": _leaves("strategy", "max_out_of_orderness_ms"),
    "allowed_lateness_ms": ANY,
}
TOPIC = {**_leaves("name", "partitions", "replication_factor"), "config": ANY}
SECURITY = {"classification": ANY, "policies": ANY}

SOURCE = {
    **_leaves("name", "topic", "description", "owner", "cluster", "tags", "region"),
    "schema": {
        **_leaves("registry", "subject", "version", "format", "definition", "compatibility"),
        "fields": [COLUMN],
    },
    "columns": [COLUMN],
    "freshness": _leaves("max_lag_seconds", "warn_after_seconds"),
    "event_time": EVENT_TIME,
    "advanced": {"event_time": EVENT_TIME},
    "ownership": OWNERSHIP,
    # A source's plugin sections (``format``, streamt-flink's) are grafted in by ``sections.accepted_keys``.
}

# A model's plugin sections (flink, sink, gateway ...) are grafted in, here and under ``advanced``,
# from their owners' ConfigSection keys by ``streamt.project.sections.accepted_keys``.
_MODEL_BLOCKS = {
    "materialized": ANY,
    "topic": TOPIC,
    "event_time": EVENT_TIME,
    "security": SECURITY,
    "access": ANY,
}

MODEL = {
    **_leaves("name", "description", "owner", "tags", "sql", "from", "key", "primary_key", "executor", "group"),
    **_leaves("version", "deprecation", "region"),
    **_MODEL_BLOCKS,
    "columns": [COLUMN],
    "contract": {"enforced": ANY, "columns": [COLUMN]},
    "ml_outputs": MapOf({"columns": [COLUMN], "description": ANY}),
    "ownership": OWNERSHIP,
    "connector": {"type": ANY, "config": ANY},
    "advanced": {**_MODEL_BLOCKS, "virtual_topic": ANY},
}

TEST = {
    **_leaves("name", "model", "type", "assertions", "sample_size", "flink_cluster", "description"),
    "on_failure": ANY,
}

_EXPOSURE_REF = {"source": ANY, "ref": ANY, "columns": [COLUMN]}
EXPOSURE = {
    **_leaves("name", "type", "role", "description", "owner", "url", "repo", "language", "tool"),
    **_leaves("consumer_group", "schedule", "sla", "contracts", "access", "freshness", "data_requirements"),
    "produces": [_EXPOSURE_REF],
    "consumes": [_EXPOSURE_REF],
    "depends_on": [_EXPOSURE_REF],
}

_SSL = ("ssl_ca_location", "ssl_certificate_location", "ssl_key_location", "ssl_key_password")
# Plugin sections (runtime.flink, runtime.connect, runtime.kafka_streams, deployment_state.postgres ...)
# are grafted in from their owners' ConfigSection keys by ``streamt.project.sections.accepted_keys``.
RUNTIME = {
    "kafka": _leaves(
        "bootstrap_servers",
        "bootstrap_servers_internal",
        "security_protocol",
        "sasl_mechanism",
        "sasl_username",
        "sasl_password",
        *_SSL,
    ),
    "schema_registry": _leaves("url", "username", "password", *_SSL),
}

_TOPIC_DEFAULTS = {**_leaves("partitions", "replication_factor"), "config": ANY}
DEFAULTS = {
    "topic": _TOPIC_DEFAULTS,
    "models": {"topic": _TOPIC_DEFAULTS, "cluster": ANY},
    "tests": _leaves("flink_cluster", "sample_size"),
}

RULES = {
    "topics": _leaves(
        *("min_partitions", "max_partitions", "min_replication_factor", "max_replication_factor"),
        *("required_config", "max_retention_ms", "naming_pattern", "forbidden_prefixes"),
    ),
    "models": _leaves(
        *("require_description", "require_owner", "valid_owners", "require_tests", "min_tests"),
        *("max_dependencies", "allowed_materializations"),
    ),
    "sources": _leaves(
        "require_schema", "require_freshness", "require_columns", "require_owner", "require_description"
    ),
    "security": _leaves("require_classification", "sensitive_columns_require_masking", "allowed_classifications"),
}

SAFETY = _leaves("confirm_apply", "allow_destructive", "require_reviewed_plan", "require_remote_state")
DEPLOYMENT_STATE = _leaves("backend", "namespace", "lock_timeout_seconds")
# ``lifecycle`` lists are grafted in from their owners' RemovalKind keys by ``streamt.project.lifecycle``.
LIFECYCLE: dict[str, Any] = {}

DECLARATIONS = {"sources": [SOURCE], "models": [MODEL], "tests": [TEST], "exposures": [EXPOSURE]}

PROJECT_FILE = {
    "apiVersion": ANY,
    "project": _leaves("name", "version", "description", "non_secret_env"),
    "runtime": RUNTIME,
    "defaults": DEFAULTS,
    "rules": RULES,
    "governance": RULES,
    "safety": SAFETY,
    "deployment_state": DEPLOYMENT_STATE,
    "lifecycle": LIFECYCLE,
    **DECLARATIONS,
}

ENVIRONMENT_FILE = {
    "environment": _leaves("name", "description", "protected"),
    "runtime": RUNTIME,
    "safety": SAFETY,
    "deployment_state": DEPLOYMENT_STATE,
}


def unknown_keys(value: Any, node: Any, path: tuple[Any, ...] = ()) -> list[UnknownKey]:
    """Every key in ``value`` that ``node`` does not accept, with a 'did you mean' suggestion."""
    found: list[UnknownKey] = []
    _check(value, node, path, found)
    return found


def _check(value: Any, node: Any, path: tuple[Any, ...], found: list[UnknownKey]) -> None:
    if node is ANY:
        return
    if isinstance(node, dict):
        if not isinstance(value, dict):
            return
        for key, item in value.items():
            if key not in node:
                found.append(UnknownKey(path, key, did_you_mean(key, list(node))))
            elif node[key] is not ANY:  # most keys are leaves: no path, no call
                _check(item, node[key], (*path, key), found)
    elif isinstance(node, list):
        if isinstance(value, list):
            for index, item in enumerate(value):
                _check(item, node[0], (*path, index), found)
    elif isinstance(node, MapOf) and isinstance(value, dict):
        for key, item in value.items():
            _check(item, node.value, (*path, key), found)
