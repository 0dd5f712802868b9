"""The exporter's own error code, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

ASYNCAPI_INVALID = ErrorCode(
    "E504_ASYNCAPI_INVALID", "AsyncAPI generation or validation failed", owner="streamt-exporter-asyncapi"
)
