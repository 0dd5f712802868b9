"""The exporter's own error code, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

STRIMZI_INVALID = ErrorCode(
    "E509_STRIMZI_INVALID", "Strimzi KafkaTopic mapping, validation or output failed", owner="streamt-exporter-strimzi"
)
