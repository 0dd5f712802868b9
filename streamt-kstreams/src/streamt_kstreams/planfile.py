"""Format 6 of the reviewed plan file: the ``kafka_streams_replacement`` field (``streamt_plan_file_extensions``).

The exact binding of one reviewed predicate-only runner replacement (generation, volume, container
and checksums, committed offset lower bounds: ``replacement.binding`` plus the deployer's
``prepare_replacement``), written by ``plan --out`` only when that replacement is the sole change
of the full project, and run only by ``apply --plan``. Key and version are fixed: files written by
earlier releases must still load.
"""

from __future__ import annotations

from streamt.sdk import KIND_KAFKA_STREAMS_JOB, PlanFileExtension

KEY = "kafka_streams_replacement"
FORMAT_VERSION = 6

EXTENSION = PlanFileExtension(
    key=KEY,
    format_version=FORMAT_VERSION,
    kinds=(KIND_KAFKA_STREAMS_JOB,),
    description="The binding of one reviewed Kafka Streams runner replacement.",
)
