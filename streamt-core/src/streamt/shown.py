"""How a value a person reads is spelled: never Python's ``None``."""

from __future__ import annotations

from typing import Any

NONE = "(none)"
UNSET = "unset"  # a configuration key that has no value


def shown(value: Any, absent: str = NONE) -> str:
    """``value`` as text, ``absent`` when it is ``None``."""
    return absent if value is None else str(value)
