"""Sink models -> Kafka Connect connector artifacts (dsl.md section 9.5).

The compiled config always holds ``name``, ``connector.class`` and ``topics``; the model's
``sink.config`` is merged in with every value as a string (what the Connect REST API stores) and
``${VAR}`` placeholders left literal: the deployer resolves them in memory at apply time, so no
secret reaches ``generated/``. Masking policies become ``MaskField$Value`` transforms, run before
any transform the user declared so they see the field names of the topic. For a connector whose
keys streamt knows (``implementations``), the declared keys are mapped to that connector's names
and unknown ones are refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from streamt_connect.implementations import DEBEZIUM_JDBC_SINK, implementation, map_config
from streamt_connect.naming import OWNER_KEY

# Short names accepted in `sink.connector` (dsl.md section 9.5); anything with a dot is a class.
CONNECTOR_CLASSES: dict[str, str] = {
    "jdbc-sink": "io.confluent.connect.jdbc.JdbcSinkConnector",
    "debezium-jdbc-sink": DEBEZIUM_JDBC_SINK,
    "snowflake-sink": "com.snowflake.kafka.connector.SnowflakeSinkConnector",
    "s3-sink": "io.confluent.connect.s3.S3SinkConnector",
    "gcs-sink": "io.confluent.connect.gcs.GcsSinkConnector",
    "elasticsearch-sink": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
    "bigquery-sink": "com.wepay.kafka.connect.bigquery.BigQuerySinkConnector",
    "http-sink": "io.confluent.connect.http.HttpSinkConnector",
}
MASK_FIELD = "org.apache.kafka.connect.transforms.MaskField$Value"
# Methods MaskField can express as a replacement; the others null the field (MaskField's default).
_REPLACEMENTS = {"redact": "****"}


def connector_class(connector: str) -> str | None:
    """The class for a short name or a fully-qualified class; ``None`` for an unknown short name."""
    if "." in connector:
        return connector
    return CONNECTOR_CLASSES.get(connector.lower())


def config_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        return ",".join(config_value(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return "" if value is None else str(value)


def mask_transforms(masks: Sequence[tuple[str, str]]) -> tuple[list[str], dict[str, str]]:
    """Transform aliases (in order) and their config keys for ``(column, method)`` masks."""
    aliases: list[str] = []
    config: dict[str, str] = {}
    for column, method in masks:
        alias = f"streamt_mask_{column}"
        aliases.append(alias)
        config[f"transforms.{alias}.type"] = MASK_FIELD
        config[f"transforms.{alias}.fields"] = column
        if method in _REPLACEMENTS:
            config[f"transforms.{alias}.replacement"] = _REPLACEMENTS[method]
    return aliases, config


def connector_config(
    name: str,
    connector: str,
    topics: Sequence[str],
    user_config: Mapping[str, Any],
    masks: Sequence[tuple[str, str]] = (),
    owner: str | None = None,
) -> dict[str, str]:
    """The full connector config, sorted by key; computed keys (and ``owner``, the owner marker of a
    managed connector: ``naming``) win over user keys of the same name.

    ``ConfigProblem`` when the connector's keys are known and one declared key is not among them.
    """
    klass = connector_class(connector)
    if klass is None:
        raise ValueError(f"unknown connector short name {connector!r}")
    config = {str(key): config_value(value) for key, value in user_config.items()}
    impl = implementation(klass)
    if impl is not None:
        config = map_config(impl, config)
    aliases, transform_config = mask_transforms(masks)
    if aliases:
        declared = [a.strip() for a in config.get("transforms", "").split(",") if a.strip()]
        config["transforms"] = ",".join(aliases + declared)
        config.update(transform_config)
    config.update({"name": name, "connector.class": klass, "topics": ",".join(topics)})
    if owner is not None:
        config[OWNER_KEY] = owner
    return dict(sorted(config.items()))
