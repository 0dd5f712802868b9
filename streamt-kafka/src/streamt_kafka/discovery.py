"""Read-only discovery of existing topics and their ``{topic}-value`` subjects (``streamt import``).

Topics cost one Metadata request for the whole cluster. Enrichment reads each
selected topic's conventional value subject directly (no subject-list or
compatibility-config permission needed) and stops asking after the first
transport failure: the remaining topics are reported ``skipped_after_outage``
and the import continues from Kafka metadata alone.
"""

from __future__ import annotations

from typing import Any

import attrs
from streamt.sdk import (
    FAILED,
    KIND_TOPIC,
    NOT_FOUND,
    NOT_REQUESTED,
    RESOLVED,
    SKIPPED_AFTER_OUTAGE,
    Enrichment,
    SchemaLookup,
    StreamtError,
    TopicMetadata,
)

from streamt_kafka.schema_columns import columns_of

AVAILABLE, OUTAGE, NOT_CONFIGURED, DISABLED = "available", "outage", "not_configured", "disabled"


@attrs.define
class KafkaSourceDiscoverer:
    runtime: Any
    name = "kafka"
    kinds = (KIND_TOPIC,)

    def list_topics(self) -> list[TopicMetadata]:
        from streamt_kafka.admin import admin_client, classify
        from streamt_kafka.observers import kafka_settings

        with admin_client(kafka_settings(self.runtime)) as admin:
            try:
                entries = admin.describe_topics()  # no names: one Metadata request for every topic
            except Exception as exc:
                raise classify(exc, "list topics") from None
        return sorted((_metadata(entry) for entry in entries), key=lambda t: t.name)

    def enrich(self, names: list[str], requested: bool = True) -> Enrichment:
        registry = getattr(self.runtime, "schema_registry", None)
        if not requested or registry is None or not registry.url:
            return Enrichment(
                {name: SchemaLookup(NOT_REQUESTED) for name in names}, DISABLED if not requested else NOT_CONFIGURED
            )
        from streamt_kafka.registry_live import RegistryClient

        client = RegistryClient(registry.url, registry.username, registry.password)
        lookups: dict[str, SchemaLookup] = {}
        availability, requests = AVAILABLE, 0
        for name in sorted(names):
            subject = f"{name}-value"
            if availability == OUTAGE:
                lookups[name] = SchemaLookup(SKIPPED_AFTER_OUTAGE, subject)
                continue
            requests += 1
            try:
                lookups[name] = _lookup(client, subject)
            except StreamtError as exc:
                # The reason is the code only: registry messages can echo URLs or schema text.
                lookups[name] = SchemaLookup(FAILED, subject, reason=exc.diagnostics[0].code.code)
                availability = OUTAGE
        return Enrichment(lookups, availability, requests)


def _metadata(entry: dict[str, Any]) -> TopicMetadata:
    partitions = entry.get("partitions") or []
    replicas = {len(p.get("replica_nodes") or []) for p in partitions}
    complete = (
        entry.get("error_code", 0) == 0 and bool(partitions) and all(p.get("error_code", 0) == 0 for p in partitions)
    )
    return TopicMetadata(str(entry.get("name")), len(partitions), max(replicas) if replicas else 0, complete)


def _lookup(client: Any, subject: str) -> SchemaLookup:
    latest = client.latest(subject)  # any transport or HTTP failure raises: treated as an outage
    if latest is None:
        return SchemaLookup(NOT_FOUND, subject)
    version, schema_id = latest.get("version"), latest.get("id")
    if not isinstance(version, int):
        return SchemaLookup(FAILED, subject, reason="malformed_response")
    fmt = str(latest.get("schemaType") or "AVRO").upper()
    columns, reason = columns_of(fmt, str(latest.get("schema") or ""))
    if reason:
        return SchemaLookup(FAILED, subject, reason=reason)
    return SchemaLookup(
        RESOLVED,
        subject,
        version=version,
        schema_id=schema_id if isinstance(schema_id, int) else None,
        format=fmt.lower(),
        columns=columns,
    )
