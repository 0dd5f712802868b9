"""A small client for the Flink SQL Gateway REST API (``/v2``: Flink 1.17 through 2.x).

One session per unit of work, one statement per call, results fetched by following
``nextResultUri`` until ``EOS``. Every request has a bounded timeout, and so does the wait for a
statement's result.

Failures are classified by the shared ``streamt.sdk`` HTTP helper. ``StreamtError`` with a
registered code when nothing happened: ``E406_CONNECTION_REFUSED`` when a request provably never
reached the gateway (or a read got no answer), ``E403_FLINK_SQL_ERROR`` when it refuses a request
(a ``4xx``) or a statement fails. ``MaybeSent`` when a statement may have been submitted and no
answer says what became of it: a write that timed out or got a ``408``/``5xx``, or a statement
whose result could not be read after the gateway accepted it.

The user-facing message names only the failing step and, for a statement, the Java exception class
and the ``line x, column y`` position; the gateway's raw answer (a stack trace that can echo option
values, e.g. a resolved JAAS line) stays on ``GatewayError.raw`` for developers and is never put in
the message, the suggestion or the details.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import attrs
from streamt.sdk import (
    Codes,
    ErrorCode,
    MaybeSent,
    StreamtError,
    bounded_error,
    bounded_session,
    json_body,
    never_sent,
    refused_before_change,
)

API = "/v2"
CONNECT_TIMEOUT_SECONDS = 5.0
DEADLINE_SECONDS = 35.0  # the total deadline of one request (the bounded HTTP layer of streamt.sdk)
STATEMENT_TIMEOUT_SECONDS = 120.0
# Statements streamt runs answer a handful of rows (DDL, EXPLAIN, SHOW); a gateway that pages on and on is cut off.
MAX_RESULT_ROWS = 10_000
_POLL_SECONDS = (0.05, 0.1, 0.2, 0.4)  # short first: DDL and EXPLAIN usually finish in milliseconds

# A statement's result that failed to arrive in one of these ways may still be running.
_UNANSWERED = (Codes.E406_CONNECTION_REFUSED, Codes.E429_SERVICE_DEADLINE_EXCEEDED, Codes.E430_SERVICE_RESPONSE_INVALID)
# Java exception classes worth naming (the most specific one found in the trace wins).
_EXCEPTION_RE = re.compile(r"\b((?:[a-z_][\w]*\.)+(\w*(?:Exception|Error)))\b")
_POSITION_RE = re.compile(r"\bline (\d+), column (\d+)\b")


class GatewayError(StreamtError):
    """A gateway failure; ``raw`` holds the gateway's answer for developers only (never shown to users)."""

    def __init__(self, code: ErrorCode, message: str, suggestion: str, raw: str = "") -> None:
        super().__init__(code, message, suggestion)
        self.raw = raw


@attrs.frozen
class StatementResult:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    job_id: str | None = None


def summarize(raw: str) -> str:
    """The part of a gateway error that is safe to show: exception class names and the SQL position."""
    names: list[str] = []
    for match in _EXCEPTION_RE.finditer(raw):
        short = match.group(2)
        if short not in names and short not in ("SqlExecutionException", "RestHandlerException"):
            names.append(short)
    position = _POSITION_RE.search(raw)
    parts = names[-2:] if names else ["unknown error"]
    where = f" at line {position.group(1)}, column {position.group(2)}" if position else ""
    return " / ".join(parts) + where


@attrs.define
class SqlGatewayClient:
    """Bound to one gateway base URL (e.g. ``http://127.0.0.1:8083``)."""

    url: str
    statement_timeout: float = STATEMENT_TIMEOUT_SECONDS
    _http: Any = attrs.field(default=None, repr=False)

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None, what: str = "") -> Any:
        import requests

        if self._http is None:
            self._http = bounded_session(
                DEADLINE_SECONDS, connect_timeout=CONNECT_TIMEOUT_SECONDS, provider="flink_sql_gateway"
            )
        try:
            response = self._http.request(method, self.url.rstrip("/") + path, json=body)
            payload = json_body(response.content)
        except requests.exceptions.RequestException as e:
            if method != "GET" and not never_sent(e):
                raise MaybeSent(type(e).__name__) from None
            bounded = bounded_error(e, "The Flink SQL Gateway", "the cluster's sql_gateway_url")
            if bounded is not None:
                first = bounded.diagnostics[0]
                raise GatewayError(first.code, first.message, first.suggestion or "") from None
            raise GatewayError(
                Codes.E406_CONNECTION_REFUSED,
                f"The Flink SQL Gateway did not answer ({what or method.lower()}).",
                "Check that the cluster's sql_gateway_url is reachable and the gateway is running.",
                raw=repr(e),
            ) from None
        except ValueError:
            payload = None
        if response.status_code >= 400:
            if method != "GET" and not refused_before_change(response.status_code):
                raise MaybeSent(f"HTTP{response.status_code}")
            raise GatewayError(
                Codes.E403_FLINK_SQL_ERROR,
                f"The Flink SQL Gateway refused to {what or method.lower()} (HTTP {response.status_code}: "
                f"{summarize(response.text)}).",
                "Read the SQL Gateway log for the full error.",
                raw=response.text,
            )
        if not isinstance(payload, dict):
            raise GatewayError(
                Codes.E403_FLINK_SQL_ERROR,
                f"The Flink SQL Gateway answered {what or method.lower()} with something that is not a JSON object.",
                "Check that sql_gateway_url points at a Flink SQL Gateway, not the Flink REST API.",
                raw=response.text,
            )
        return payload

    def info(self) -> dict[str, Any]:
        """``{"productName": ..., "version": ...}``."""
        return dict(self._request("GET", f"{API}/info", what="report its version"))

    def open_session(self, name: str | None = None, properties: dict[str, str] | None = None) -> str:
        body: dict[str, Any] = {"properties": dict(properties or {})}
        if name:
            body["sessionName"] = name
        handle = self._request("POST", f"{API}/sessions", body, what="open a session").get("sessionHandle")
        if not isinstance(handle, str) or not handle:
            raise MaybeSent("NoSessionHandle")  # accepted without a handle: a session may exist
        return handle

    def close_session(self, session: str) -> None:
        self._request("DELETE", f"{API}/sessions/{session}", what="close a session")

    @contextmanager
    def session(self, name: str | None = None) -> Iterator[str]:
        handle = self.open_session(name)
        try:
            yield handle
        finally:
            # The gateway expires idle sessions itself; the caller's outcome matters more.
            with suppress(GatewayError, MaybeSent):
                self.close_session(handle)

    def execute(self, session: str, statement: str, label: str = "statement") -> StatementResult:
        """Run one statement and return its whole result; a failure is ``E403`` naming ``label``.

        Once the gateway has accepted the statement, a result that cannot be read (no answer, a
        timeout) is ``MaybeSent``: the statement may be running.
        """
        what = f"run {label}"
        operation = self._request("POST", f"{API}/sessions/{session}/statements", {"statement": statement}, what)
        handle = operation.get("operationHandle") if isinstance(operation, dict) else None
        if not handle:
            raise MaybeSent("NoOperationHandle")
        base = f"{API}/sessions/{session}/operations/{handle}"
        try:
            return self._result(base, label, what)
        except GatewayError as exc:
            if exc.diagnostics[0].code in _UNANSWERED:
                raise MaybeSent("ResultUnreadable") from None
            raise

    def _result(self, base: str, label: str, what: str) -> StatementResult:
        """Every row of the accepted statement at ``base``, following ``nextResultUri`` until ``EOS``."""
        uri: str | None = f"{base}/result/0?rowFormat=JSON"
        columns: tuple[str, ...] = ()
        rows: list[tuple[Any, ...]] = []
        job_id = None
        deadline = time.monotonic() + self.statement_timeout
        polls = 0
        while uri:
            if time.monotonic() > deadline:
                self._cancel(base)
                raise MaybeSent("StatementTimeout")  # accepted and unfinished: it may still run
            body = self._request("GET", uri, what=what)
            if body.get("resultType") == "NOT_READY":
                time.sleep(_POLL_SECONDS[min(polls, len(_POLL_SECONDS) - 1)])
                polls += 1
                uri = body.get("nextResultUri") or uri
                continue
            page = _result_page(body)
            if page is None:  # accepted, and its result cannot be read: the statement may be running
                raise MaybeSent("UnreadableResult")
            page_columns, page_rows = page
            columns = page_columns or columns
            rows.extend(page_rows)
            if len(rows) > MAX_RESULT_ROWS:
                self._cancel(base)
                raise MaybeSent("ResultTooLarge")
            job_id = body.get("jobID") or job_id
            uri = body.get("nextResultUri") if body.get("resultType") != "EOS" else None
        return StatementResult(columns, tuple(rows), job_id)

    def _cancel(self, base: str) -> None:
        with suppress(GatewayError, MaybeSent):  # best effort: the timeout is what gets reported
            self._request("POST", f"{base}/cancel", what="cancel a statement")


def _result_page(body: dict[str, Any]) -> tuple[tuple[str, ...], list[tuple[Any, ...]]] | None:
    """The columns and rows of one result page; ``None`` when the page is not shaped as the API says."""
    results = body.get("results") or {}
    columns = results.get("columns") or () if isinstance(results, dict) else None
    data = results.get("data") or () if isinstance(results, dict) else None
    if not isinstance(columns, list | tuple) or not isinstance(data, list | tuple):
        return None
    if not all(isinstance(c, dict) and isinstance(c.get("name"), str) for c in columns):
        return None
    if not all(isinstance(d, dict) and isinstance(d.get("fields") or [], list) for d in data):
        return None
    return tuple(c["name"] for c in columns), [tuple(d.get("fields") or ()) for d in data]
