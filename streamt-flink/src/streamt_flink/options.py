"""Connector options (the ``WITH`` list) of the Kafka tables a Flink job reads and writes.

Option names are those of flink-sql-connector-kafka 3.x: ``kafka`` for append tables,
``upsert-kafka`` for tables that receive updates (``key.format``/``value.format`` and a primary
key). Client security settings are passed through ``properties.*``. The SASL password is never
written: the JAAS line carries a ``${VAR}`` placeholder that the deployer resolves in memory.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

FORMAT = "json"
# A changelog format for keyless updating results (outer joins): every row kind survives the topic.
CHANGELOG_FORMAT = "debezium-json"

# flink-sql-connector-kafka (the SQL jar) relocates kafka-clients under this prefix: an unshaded
# LoginModule name fails at runtime ("No LoginModule found"), seen on the devstack's Flink 2.2.
_SHADED = "org.apache.flink.kafka.shaded."
_JAAS_MODULES = {
    "PLAIN": _SHADED + "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": _SHADED + "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": _SHADED + "org.apache.kafka.common.security.scram.ScramLoginModule",
}


@attrs.frozen
class KafkaConnection:
    """What a Flink table needs to reach Kafka, secrets as placeholders only.

    ``password_placeholder`` is the literal ``${VAR}`` text standing for the SASL password.
    """

    bootstrap_servers: str
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    password_placeholder: str | None = None


def _client_properties(connection: KafkaConnection) -> dict[str, str]:
    props = {"properties.bootstrap.servers": connection.bootstrap_servers}
    protocol = connection.security_protocol.upper()
    if protocol != "PLAINTEXT":
        props["properties.security.protocol"] = protocol
    if connection.sasl_mechanism:
        mechanism = connection.sasl_mechanism.upper()
        props["properties.sasl.mechanism"] = mechanism
        module = _JAAS_MODULES.get(mechanism)
        if module and connection.sasl_username is not None:
            username = connection.sasl_username.replace('"', '\\"')
            password = connection.password_placeholder or ""
            props["properties.sasl.jaas.config"] = f'{module} required username="{username}" password="{password}";'
    return props


def source_options(
    connection: KafkaConnection, topic: str, group_id: str, value_format: str = FORMAT, skip_bad: bool = False
) -> dict[str, str]:
    """A Kafka table read from the earliest offset by a dedicated consumer group.

    ``skip_bad``: records the format cannot decode are skipped (``<format>.ignore-parse-errors``,
    which Flink's json and debezium-json formats have) instead of failing the job.
    """
    options = {
        "connector": "kafka",
        "topic": topic,
        "properties.group.id": group_id,
        "scan.startup.mode": "earliest-offset",
        "format": value_format,
        **_client_properties(connection),
    }
    if skip_bad:
        options[f"{value_format}.ignore-parse-errors"] = "true"
    return options


def sink_options(
    connection: KafkaConnection, topic: str, key_fields: Sequence[str] = (), value_format: str = FORMAT
) -> dict[str, str]:
    """A Kafka table (append, or a changelog format); ``key_fields`` become the record key (partitioning)."""
    options = {"connector": "kafka", "topic": topic, "format": value_format, **_client_properties(connection)}
    if key_fields:
        # Key columns are also kept in the value so that consumers reading values only see them.
        options.update({"key.format": FORMAT, "key.fields": ";".join(key_fields), "value.fields-include": "ALL"})
    return options


def upsert_sink_options(connection: KafkaConnection, topic: str) -> dict[str, str]:
    """An ``upsert-kafka`` table: the primary key is the record key, a retraction is a tombstone."""
    return {
        "connector": "upsert-kafka",
        "topic": topic,
        "key.format": FORMAT,
        "value.format": FORMAT,
        **_client_properties(connection),
    }
