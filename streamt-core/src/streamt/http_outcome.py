"""What an HTTP request's failure says about a change: the one classifier every REST provider uses.

A deployer must tell ``failed`` (the service refused and changed nothing) from ``unknown`` (the
change may have happened). Over HTTP that comes down to two questions, answered here once:

* **Was the request sent?** A refused connection, a TLS failure or a connect timeout prove it
  never left (``never_sent``); a read timeout or a dropped connection do not: the service may
  have received and applied it (``MaybeSent``).
* **What does a status mean?** ``401``/``403`` are refused credentials (``E404_AUTH_FAILED``,
  ``auth_refused``); another ``4xx`` except ``408`` is a refusal before any change
  (``refused_before_change``); ``408``, ``5xx`` and anything unexpected leave the outcome unknown.

Works with ``requests`` without depending on it: an exception can only be a ``requests`` one when
``requests`` is already imported.
"""

from __future__ import annotations

import sys

from streamt.apply.outcome import FAILED, UNKNOWN, Outcome
from streamt.errors import Codes, ErrorCode


class MaybeSent(Exception):
    """The request may have reached the service, and no answer came back: a write's outcome is unknown."""


def never_sent(exc: BaseException) -> bool:
    """Whether ``exc`` (raised by ``requests``) proves the request never reached the service."""
    requests = sys.modules.get("requests")
    if requests is None:
        return False
    errors = requests.exceptions
    if isinstance(exc, errors.ConnectTimeout | errors.SSLError):
        return True
    if isinstance(exc, errors.ConnectionError):
        reason = exc.args[0] if exc.args else None
        reason = getattr(reason, "reason", reason)
        urllib3 = sys.modules.get("urllib3")
        return urllib3 is not None and isinstance(reason, urllib3.exceptions.NewConnectionError)
    return False


def auth_refused(status: int) -> bool:
    """``401``/``403``: the service refused the credentials (report ``E404_AUTH_FAILED``)."""
    return status in (401, 403)


def refused_before_change(status: int) -> bool:
    """A ``4xx`` other than ``408``: the service refused the request before changing anything."""
    return 400 <= status < 500 and status != 408


def code_for_status(status: int) -> ErrorCode:
    """The error code of a failed HTTP answer: ``E404`` for credentials, else ``E407_DEPLOY_ERROR``."""
    return Codes.E404_AUTH_FAILED if auth_refused(status) else Codes.E407_DEPLOY_ERROR


def write_outcome(status: int, *, changed_before: bool = False) -> Outcome:
    """The outcome of a write that did not get its success status.

    ``failed`` only for a refusal before any change, and only when no earlier write of the same
    action was answered (``changed_before``); ``unknown`` otherwise. The error is ``HTTP<status>``,
    never the response body.
    """
    failed = refused_before_change(status) and not changed_before
    return Outcome(FAILED if failed else UNKNOWN, f"HTTP{status}")
