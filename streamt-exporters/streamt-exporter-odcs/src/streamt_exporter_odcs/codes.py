"""The exporter's own error code, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

ODCS_INVALID = ErrorCode(
    "E505_ODCS_INVALID",
    "ODCS metadata, mapping, validation, serialization, or output failed",
    owner="streamt-exporter-odcs",
)
