"""Structured logs on stderr, configured once, on first use.

structlog is imported lazily so that commands which never log do not pay for
it at start-up. ``STREAMT_LOG_LEVEL`` picks the level (default WARNING).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

_CONFIGURED = False


def get_logger(name: str = "streamt") -> Any:
    global _CONFIGURED
    import structlog

    if not _CONFIGURED:
        level_name = os.environ.get("STREAMT_LOG_LEVEL", "WARNING").upper()
        level = getattr(logging, level_name, logging.WARNING)
        structlog.configure(
            processors=[
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.KeyValueRenderer(key_order=["timestamp", "level", "event"], sort_keys=True),
            ],
            wrapper_class=structlog.make_filtering_bound_logger(level),
            logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
            cache_logger_on_first_use=True,
        )
        _CONFIGURED = True
    return structlog.get_logger(name)
