"""The Gateway plugin's own code, registered with core through ``streamt_error_codes``."""

from __future__ import annotations

from streamt.sdk import ErrorCode

MASK_NOT_APPLICABLE = ErrorCode(
    "W131_GATEWAY_MASK_NOT_APPLICABLE",
    "A virtual topic masks with a method Gateway cannot apply; plan will block it",
    owner="streamt-gateway",
)
