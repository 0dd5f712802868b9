"""The exporter's own error code, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

DATAHUB_INVALID = ErrorCode(
    "E508_DATAHUB_INVALID",
    "DataHub identity, mapping, validation, serialization, or output failed",
    owner="streamt-exporter-datahub",
)
