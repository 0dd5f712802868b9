"""Driver-error classification shared by the administrative and writer paths.

A statement that fails before ``COMMIT`` leaves nothing behind; a ``COMMIT``
that fails is classified by whether the server answered. A server error
(serialization failure, constraint) means the transaction was rolled back;
a lost connection means nobody knows, which is ``E425`` and never retried.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from streamt.sdk import StreamtError

from streamt_postgres_state.db import driver
from streamt_postgres_state.errors import unavailable, unknown_outcome


@contextlib.contextmanager
def translated(make_error: Callable[[], StreamtError]) -> Iterator[None]:
    """Replace any driver error raised inside by ``make_error()`` (never its text)."""
    psycopg2 = driver()
    try:
        yield
    except psycopg2.Error:
        raise make_error() from None


def failed_statement() -> StreamtError:
    return unavailable(
        "A PostgreSQL deployment-state statement failed; nothing was committed.",
        "Retry the identical command; inspect `streamt state status` if it keeps failing.",
    )


def begin_serializable(cur: Any) -> None:
    cur.execute("BEGIN ISOLATION LEVEL SERIALIZABLE")
    cur.execute("SET LOCAL search_path = pg_catalog")


def rollback_quietly(cur: Any) -> None:
    with contextlib.suppress(Exception):
        cur.execute("ROLLBACK")


def commit(cur: Any, operation_id: str | None = None) -> None:
    """``COMMIT``, or E420 when the server refused it, or E425 when the outcome is unknown."""
    psycopg2 = driver()
    try:
        cur.execute("COMMIT")
    except psycopg2.Error as exc:
        if exc.pgcode is not None and not cur.connection.closed:
            rollback_quietly(cur)
            raise failed_statement() from None
        raise unknown_outcome(operation_id) from None
