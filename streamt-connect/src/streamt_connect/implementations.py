"""Connector implementations whose configuration streamt knows key by key.

For these, the compiled config is exactly what the connector accepts: keys declared under the
names of another implementation of the same job (Confluent's JDBC sink spellings) are mapped to
this connector's names, and a key neither the connector nor the Connect framework knows is
refused with a suggestion, before anything reaches a worker. Any other connector class passes
its ``sink.config`` through unchanged (streamt cannot know its keys).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

import attrs

DEBEZIUM_JDBC_SINK = "io.debezium.connector.jdbc.JdbcSinkConnector"

# Keys the Connect framework reads for every sink connector (ConnectorConfig and SinkConnectorConfig).
FRAMEWORK_KEYS = frozenset(
    {
        "name",
        "connector.class",
        "connector.plugin.version",
        "tasks.max",
        "tasks.max.enforce",
        "topics",
        "topics.regex",
        "key.converter",
        "key.converter.plugin.version",
        "value.converter",
        "value.converter.plugin.version",
        "header.converter",
        "header.converter.plugin.version",
        "transforms",
        "predicates",
        "config.action.reload",
        "errors.retry.timeout",
        "errors.retry.delay.max.ms",
        "errors.tolerance",
        "errors.log.enable",
        "errors.log.include.messages",
        "errors.deadletterqueue.topic.name",
        "errors.deadletterqueue.topic.replication.factor",
        "errors.deadletterqueue.context.headers.enable",
    }
)
# Prefixes whose sub-keys belong to a converter, transform, predicate or the sink's consumer.
FRAMEWORK_PREFIXES = (
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "transforms.",
    "predicates.",
    "consumer.override.",
)


@attrs.frozen
class Implementation:
    """One connector class: the keys it accepts and how foreign spellings map onto them."""

    connector_class: str
    keys: frozenset[str]
    # declared key -> this connector's key, for keys whose value means the same
    renames: Mapping[str, str] = attrs.field(factory=dict)
    # declared boolean key -> (this connector's key, value when true, value when false)
    switches: Mapping[str, tuple[str, str, str]] = attrs.field(factory=dict)

    def accepts(self, key: str) -> bool:
        return key in self.keys or key in FRAMEWORK_KEYS or key.startswith(FRAMEWORK_PREFIXES)

    def suggestion(self, key: str) -> str:
        known = sorted(self.keys | set(self.renames) | set(self.switches))
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        hint = f"Did you mean '{close[0]}'? " if close else ""
        return hint + f"{self.connector_class} accepts: " + ", ".join(sorted(self.keys)) + "."


# Debezium's JDBC sink (io.debezium:debezium-connector-jdbc 3.6), its own keys as its
# ConfigDef lists them (GET /connector-plugins/<class>/config).
DEBEZIUM_JDBC = Implementation(
    connector_class=DEBEZIUM_JDBC_SINK,
    keys=frozenset(
        {
            "connection.url",
            "connection.username",
            "connection.password",
            "connection.pool.min_size",
            "connection.pool.max_size",
            "connection.pool.timeout",
            "connection.restart.on.errors",
            "insert.mode",
            "delete.enabled",
            "truncate.enabled",
            "collection.name.format",
            "collection.naming.strategy",
            "collection.table.format",
            "primary.key.mode",
            "primary.key.fields",
            "schema.evolution",
            "quote.identifiers",
            "column.naming.strategy",
            "use.time.zone",
            "database.time_zone",
            "dialect.postgres.postgis.schema",
            "dialect.postgres.unnest.insert.enabled",
            "dialect.sqlserver.identity.insert",
            "batch.size",
            "field.include.list",
            "field.exclude.list",
            "flush.max.retries",
            "flush.retry.delay.ms",
            "cloud.events.schema.name.pattern",
        }
    ),
    renames={
        "connection.user": "connection.username",
        "pk.mode": "primary.key.mode",
        "pk.fields": "primary.key.fields",
        # Debezium still reads its own deprecated spellings; the compiled config uses the current ones.
        "table.name.format": "collection.name.format",
        "table.naming.strategy": "collection.naming.strategy",
        "db.timezone": "database.time_zone",
        "max.retries": "flush.max.retries",
        "retry.backoff.ms": "flush.retry.delay.ms",
    },
    switches={
        "auto.create": ("schema.evolution", "basic", "none"),
        "auto.evolve": ("schema.evolution", "basic", "none"),
    },
)

IMPLEMENTATIONS: dict[str, Implementation] = {DEBEZIUM_JDBC.connector_class: DEBEZIUM_JDBC}


class ConfigProblem(ValueError):
    """A declared key the implementation refuses; ``suggestion`` says what it accepts."""

    def __init__(self, message: str, suggestion: str) -> None:
        super().__init__(message)
        self.suggestion = suggestion


def implementation(connector_class: str) -> Implementation | None:
    return IMPLEMENTATIONS.get(connector_class)


def _true(value: str) -> bool:
    return value.strip().lower() == "true"


def map_config(impl: Implementation, config: Mapping[str, str]) -> dict[str, str]:
    """``config`` under ``impl``'s own key names; ``ConfigProblem`` for an unknown or conflicting key."""
    out: dict[str, str] = {}
    origin: dict[str, str] = {}
    for key, value in sorted(config.items()):
        if key in impl.renames:
            target, mapped = impl.renames[key], value
        elif key in impl.switches:
            target, on, off = impl.switches[key]
            mapped = on if _true(value) else off
        elif impl.accepts(key):
            target, mapped = key, value
        else:
            raise ConfigProblem(f"{impl.connector_class} has no configuration key '{key}'", impl.suggestion(key))
        if target in out and out[target] != mapped:
            # auto.create/auto.evolve: either one asking for evolution turns it on.
            if key in impl.switches and origin[target] in impl.switches:
                on = impl.switches[key][1]
                out[target] = on if on in (out[target], mapped) else mapped
                continue
            raise ConfigProblem(
                f"'{key}' and '{origin[target]}' both set {impl.connector_class}'s '{target}', to different values",
                f"Declare '{target}' once.",
            )
        out[target], origin[target] = mapped, key
    return out
