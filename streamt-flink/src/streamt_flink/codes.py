"""streamt-flink's own codes, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

UPSERT_KEY_NULLABLE = ErrorCode(
    "W124_UPSERT_KEY_NULLABLE",
    "An upsert sink's primary key column can be NULL upstream: one NULL fails the job on every restart",
    owner="streamt-flink",
)
