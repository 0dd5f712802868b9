"""What a source discoverer reports: topic metadata and schema lookups, with provenance.

A discoverer (``streamt_source_discoverers`` hook) is read-only and has two
steps, so that core can filter before any Schema Registry request is made:

* ``list_topics()`` -> ``list[TopicMetadata]`` (every topic, internal ones
  included: core decides what to skip and reports it);
* ``enrich(names)`` -> ``Enrichment`` for exactly the selected topics.
"""

from __future__ import annotations

from typing import Any

import attrs

# Schema lookup outcomes, as the CLI reference distinguishes them.
NOT_REQUESTED = "not_requested"
NOT_FOUND = "not_found"
RESOLVED = "resolved"
FAILED = "failed"
SKIPPED_AFTER_OUTAGE = "skipped_after_outage"
LOOKUP_STATUSES = (NOT_REQUESTED, NOT_FOUND, RESOLVED, FAILED, SKIPPED_AFTER_OUTAGE)
# ``failed`` lookups whose registry answered but whose schema import cannot read (no outage).
UNSUPPORTED_REASONS = ("unparseable", "not_a_record", "not_an_object", "unsupported_format", "malformed_response")


@attrs.frozen
class TopicMetadata:
    """One live topic.

    * ``name`` — the topic name; ``partitions``, ``replication_factor`` — as the broker reports them.
    * ``complete`` — ``False`` when the broker answered with an error or no partitions.
    """

    name: str
    partitions: int
    replication_factor: int
    complete: bool = True


@attrs.frozen
class SchemaLookup:
    """The conventional ``{topic}-value`` subject of one topic, as the registry answered.

    * ``status`` — ``not_requested``, ``not_found``, ``resolved``, ``failed`` or ``skipped_after_outage``.
    * ``subject``, ``version``, ``schema_id``, ``format`` — what the registry returned (``AVRO`` ...).
    * ``columns`` — ``(name, Flink SQL type)`` of the top-level fields; empty for Protobuf.
    * ``reason`` — why a ``failed`` lookup failed (``unparseable``, ``not_a_record`` ...).
    """

    status: str = attrs.field(validator=attrs.validators.in_(LOOKUP_STATUSES))
    subject: str | None = None
    version: int | None = None
    schema_id: int | None = None
    format: str | None = None
    # (name, Flink SQL type) of the top-level fields; empty for Protobuf and unsupported shapes.
    columns: tuple[tuple[str, str], ...] = ()
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The schema lookup as JSON data (``import`` previews)."""
        return {
            "columns_inferred": len(self.columns),
            "format": self.format,
            "reason": self.reason,
            "schema_id": self.schema_id,
            "status": self.status,
            "subject": self.subject,
            "version": self.version,
        }


@attrs.frozen
class Enrichment:
    """Schema lookups for the selected topics.

    * ``lookups`` — ``SchemaLookup`` per topic name.
    * ``availability`` — whether the registry stayed available (``available``, ``outage`` ...).
    * ``requests`` — how many registry requests were made.
    """

    lookups: dict[str, SchemaLookup]
    availability: str
    requests: int = 0
