"""Structured logs on stderr, configured once, on first use.

structlog is imported lazily so that commands which never log do not pay for
it at start-up. ``STREAMT_LOG_LEVEL`` picks the level (default WARNING);
``--log-format`` (or ``STREAMT_LOG_FORMAT``) the rendering: ``keyvalue`` lines
(default) or one JSON object per line.

Two hook points feed the debug log and nothing else: ``provider_request`` around
each HTTP request a provider client sends (method, path template, status,
duration; never a URL, header, body or query string; the bounded HTTP layer's
adapter calls it for every session made with a ``provider``), and
``executor_step`` for each step the apply executor journals.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

KEYVALUE, JSON = "keyvalue", "json"

_CONFIGURED: tuple[str, int] | None = None  # (format, level) structlog is configured for
_FORMAT: str | None = None  # --log-format; None: STREAMT_LOG_FORMAT, else keyvalue


def set_format(fmt: str | None) -> None:
    """The rendering for this run (``--log-format``); ``None`` falls back to ``STREAMT_LOG_FORMAT``."""
    global _FORMAT
    _FORMAT = fmt


def level() -> int:
    name = os.environ.get("STREAMT_LOG_LEVEL", "WARNING").upper()
    value = getattr(logging, name, logging.WARNING)
    return value if isinstance(value, int) else logging.WARNING


def get_logger(name: str = "streamt") -> Any:
    global _CONFIGURED
    import structlog

    fmt = _FORMAT or os.environ.get("STREAMT_LOG_FORMAT", KEYVALUE).lower()
    wanted = (fmt, level())
    if wanted != _CONFIGURED:
        renderer: Any = (
            structlog.processors.JSONRenderer(sort_keys=True)
            if fmt == JSON
            else structlog.processors.KeyValueRenderer(key_order=["timestamp", "level", "event"], sort_keys=True)
        )
        structlog.configure(
            processors=[
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                renderer,
            ],
            wrapper_class=structlog.make_filtering_bound_logger(wanted[1]),
            # sys.stderr as it is when a logger is made, not when structlog was configured.
            logger_factory=lambda *_: structlog.PrintLogger(sys.stderr),
            cache_logger_on_first_use=True,
        )
        _CONFIGURED = wanted
    return structlog.get_logger(name)


class RequestLog:
    """What the client learnt of one request: its HTTP ``status`` once an answer came."""

    status: int | None = None


# A path segment that names something (digits, '_', '.', '%', upper case: a topic, a subject, a job id)
# rather than a resource collection of the API: the template shows it as ``{}``.
_NAMED = re.compile(r"[^a-z-]")
_API_VERSION = re.compile(r"^v\d+$")


def path_template(path: str) -> str:
    """``/connectors/orders_to_db/status?expand=x`` -> ``/connectors/{}/status``: no names, no query."""
    segments = path.split("?", 1)[0].split("#", 1)[0].split("/")
    return "/".join(s if not s or _API_VERSION.match(s) or not _NAMED.search(s) else "{}" for s in segments)


@contextmanager
def provider_request(provider: str, method: str, path: str) -> Iterator[RequestLog]:
    """Around one HTTP request of a provider client: at DEBUG, one ``provider_request`` line when it ends.

    The client sets ``.status`` from the answer; a request that raised is logged with the
    exception's class name as its outcome, and the exception goes on as it was.
    """
    entry = RequestLog()
    if level() > logging.DEBUG:
        yield entry
        return
    started = time.monotonic()
    outcome: Any = None
    try:
        yield entry
    except BaseException as exc:
        outcome = type(exc).__name__
        raise
    finally:
        with suppress(OSError, ValueError):  # a closed stderr must not change the request's outcome
            get_logger("streamt.provider").debug(
                "provider_request",
                provider=provider,
                method=method,
                path=path_template(path),
                status=entry.status if entry.status is not None else outcome,
                duration_ms=round((time.monotonic() - started) * 1000, 1),
            )


def executor_step(status: str, actions: Any) -> None:
    """At DEBUG, one ``executor_step`` line per action the executor journalled ``status`` for."""
    if level() > logging.DEBUG:
        return
    logger = get_logger("streamt.executor")
    with suppress(OSError, ValueError):  # told after the journal write: a closed stderr must not fail the apply
        for action in actions:
            logger.debug("executor_step", step=status, action=action.action, kind=action.kind, identity=action.identity)
