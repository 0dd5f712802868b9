"""The exporter's own error code, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

BACKSTAGE_INVALID = ErrorCode(
    "E507_BACKSTAGE_INVALID",
    "Backstage catalog input, mapping, validation or output failed",
    owner="streamt-exporter-backstage",
)
