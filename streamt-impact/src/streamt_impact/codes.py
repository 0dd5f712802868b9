"""streamt-impact's own code, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

GIT_READ_FAILED = ErrorCode(
    "E510_GIT_READ_FAILED", "A Git ref or the project files at it could not be read safely", owner="streamt-impact"
)
