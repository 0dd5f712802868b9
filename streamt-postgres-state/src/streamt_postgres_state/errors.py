"""Secret-neutral errors of the PostgreSQL backend.

Every failure is reported by what went wrong, never by what was configured:
no DSN, host, port, role, login, schema name or raw driver text reaches a
message, because diagnostics are printed, logged and stored by CI systems.
Driver exceptions are therefore always swallowed (``from None``) and replaced
by one of these.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Codes, StreamtError, next_steps, unfinished_operation_commands

_STATUS_HINT = "Inspect `streamt state status`; never edit the catalog by hand."


def _op(operation_id: str | None) -> dict[str, Any]:
    return {} if operation_id is None else {"operation_id": operation_id}


def unavailable(message: str, suggestion: str | None = None) -> StreamtError:
    return StreamtError(
        Codes.E420_STATE_BACKEND_UNAVAILABLE,
        message,
        suggestion or "Check deployment_state.postgres and that the named environment variables are set.",
    )


def invalid(message: str, suggestion: str | None = None) -> StreamtError:
    return StreamtError(
        Codes.E411_STATE_INVALID,
        message,
        suggestion or "The catalog is not an exact streamt catalog; restore it from a backup. No repair is attempted.",
    )


def lock_timeout(seconds: float) -> StreamtError:
    return StreamtError(
        Codes.E422_STATE_LOCK_TIMEOUT,
        f"Another operation held the PostgreSQL deployment-state lock for more than {seconds:g} seconds.",
        "Resolve the legitimate contention and retry; never force-unlock.",
    )


def lock_lost(operation_id: str | None) -> StreamtError:
    return StreamtError(
        Codes.E423_STATE_LOCK_LOST,
        "The operation lost its PostgreSQL deployment-state connection and lock.",
        "Start no further mutation; " + _STATUS_HINT,
        details=_op(operation_id),
        data=_op(operation_id),
    )


def conflict(message: str, operation_id: str | None) -> StreamtError:
    return StreamtError(
        Codes.E424_STATE_CONFLICT,
        message,
        "Re-plan; do not replay the operation. " + _STATUS_HINT,
        details=_op(operation_id),
        data=_op(operation_id),
    )


def unknown_outcome(operation_id: str | None = None) -> StreamtError:
    return StreamtError(
        Codes.E425_STATE_UNKNOWN_OUTCOME,
        "The PostgreSQL commit could not be classified; it may or may not have been applied.",
        "Do not replay it blindly; preserve evidence and " + _STATUS_HINT[0].lower() + _STATUS_HINT[1:],
        details=_op(operation_id),
        data=_op(operation_id),
    )


def release_failed(operation_id: str | None = None) -> StreamtError:
    data = {"committed": True, **_op(operation_id)}
    return StreamtError(
        Codes.E426_STATE_RELEASE_FAILED_AFTER_COMMIT,
        "The commit is verified, but releasing the PostgreSQL deployment-state lock failed.",
        "Treat the change as committed and do not replay it.",
        details=data,
        data=data,
    )


def recovery_required(control: Any, env: str | None) -> StreamtError:
    """``E419`` for ``control``'s unfinished operation, naming the exact commands that finish its kind."""
    kind, operation_id = control.operation_kind, control.operation_id
    steps = next_steps(kind, str(operation_id), env)
    return StreamtError(
        Codes.E419_STATE_RECOVERY_REQUIRED,
        f"An unfinished operation ({control.status}) blocks changes at this state address.",
        f"Keep the marker; run {unfinished_operation_commands(kind, operation_id, env)}.",
        details=_op(operation_id),
        data={**_op(operation_id), "operation_kind": kind, "next_steps": steps},
    )
