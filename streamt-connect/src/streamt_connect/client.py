"""A thin Kafka Connect REST client that never shows a response body or a credential.

Connect error bodies can echo connector configuration (and so secrets) and internal class paths,
so failures are reported as a code and an HTTP status only. Transport failures are split in two:
a request that provably never left (refused connection, TLS or connect timeout) and one that may
have reached the worker (read timeout, dropped connection): a write in the second case has an
unknown outcome.

Reads (``get``, ``read``) ask again while the worker group rebalances: a worker answers 409 then,
and right after a connector delete 500 "a rebalance is expected" (RebalanceNeededException);
neither says anything about the connector, and a plan run seconds after an apply must not fail on
it. The retries share one read budget; writes are never asked again here (the deployers decide what
a refused write means).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

import attrs

# The bounded HTTP layer (and with it `requests`) is looked up when a client is made, not when this
# module is imported: an offline plan imports the planner beside this client and sends nothing.
from streamt import sdk
from streamt.sdk import Codes, MaybeSent, StreamtError, auth_refused, never_sent

# Total deadlines of one request (the bounded HTTP layer of streamt.sdk): a connector write waits
# for the worker group; a read has no reason to wait that long on a stalled worker.
WRITE_DEADLINE_SECONDS = 70.0
READ_DEADLINE_SECONDS = 15.0
CONNECT_TIMEOUT_SECONDS = 10.0
# A rebalance settles in about a second; the pause keeps a read from hammering a worker busy with it.
REBALANCE_PAUSE_SECONDS = 0.5
# A retry with less of the read budget left than this would only time out.
MIN_ATTEMPT_SECONDS = 0.5


def connector_path(name: str, suffix: str = "") -> str:
    return f"/connectors/{quote(name, safe='')}{suffix}"


def rebalancing(status: int, payload: Any) -> bool:
    """Whether a read's answer only says the worker group is (about to be) rebalancing."""
    if status == 409:
        return True
    message = payload.get("message") if isinstance(payload, dict) else None
    return status == 500 and isinstance(message, str) and "rebalance" in message.lower()


@attrs.frozen
class ConnectClient:
    url: str
    cluster: str
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)
    verify: Any = True
    _session: Any = attrs.field(
        factory=lambda: sdk.bounded_session(
            WRITE_DEADLINE_SECONDS, connect_timeout=CONNECT_TIMEOUT_SECONDS, provider="connect"
        ),
        init=False,
        eq=False,
        repr=False,
    )

    def request(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> tuple[int, Any]:
        """One request: ``(status, parsed JSON or None)``; ``StreamtError`` when nothing was sent or a
        read failed, ``MaybeSent`` when a write may have reached the worker. ``timeout`` shortens the
        method's deadline."""
        import requests

        auth = (self.username, self.password or "") if self.username else None
        try:
            response = self._session.request(
                method,
                self.url.rstrip("/") + path,
                json=body,
                headers={"Accept": "application/json"},
                auth=auth,
                timeout=timeout or (READ_DEADLINE_SECONDS if method == "GET" else WRITE_DEADLINE_SECONDS),
                verify=self.verify,
                allow_redirects=False,
            )
            payload = sdk.json_or_none(response.content)
        except requests.exceptions.SSLError:
            raise StreamtError(
                Codes.E405_SSL_ERROR,
                f"The TLS handshake with Kafka Connect cluster '{self.cluster}' failed.",
                f"Check runtime.connect.clusters.{self.cluster}.rest_url and its certificate settings.",
            ) from None
        except requests.exceptions.RequestException as exc:
            if never_sent(exc):
                raise self.unreachable() from None
            bounded = sdk.bounded_error(
                exc, f"Kafka Connect cluster '{self.cluster}'", f"runtime.connect.clusters.{self.cluster}.rest_url"
            )
            if bounded is not None and method == "GET":
                raise bounded from None
            raise MaybeSent(type(exc).__name__) from None
        if auth_refused(response.status_code):
            raise StreamtError(
                Codes.E404_AUTH_FAILED,
                f"Kafka Connect cluster '{self.cluster}' refused the credentials (HTTP {response.status_code}).",
                f"Check runtime.connect.clusters.{self.cluster}.username/password.",
            )
        return response.status_code, payload

    def get(self, path: str) -> tuple[int, Any]:
        """A GET asked again while the worker group rebalances, within ``READ_DEADLINE_SECONDS`` in all;
        the last answer as ``request`` gives it."""
        ends = time.monotonic() + READ_DEADLINE_SECONDS
        status, payload = self.request("GET", path)
        while rebalancing(status, payload):
            budget = ends - time.monotonic() - REBALANCE_PAUSE_SECONDS
            if budget < MIN_ATTEMPT_SECONDS:
                break
            time.sleep(REBALANCE_PAUSE_SECONDS)
            status, payload = self.request("GET", path, timeout=round(budget, 1))
        return status, payload

    def read(self, path: str, doing: str) -> Any:
        """A GET (``get``) that must answer 200 with JSON; anything else is a secret-free error."""
        try:
            status, payload = self.get(path)
        except MaybeSent:
            raise self.unreachable() from None
        if status != 200 or payload is None:
            raise self.unexpected(doing, status)
        return payload

    def unreachable(self) -> StreamtError:
        return StreamtError(
            Codes.E406_CONNECTION_REFUSED,
            f"Kafka Connect cluster '{self.cluster}' did not answer.",
            f"Check that runtime.connect.clusters.{self.cluster}.rest_url is reachable.",
        )

    def unexpected(self, doing: str, status: int) -> StreamtError:
        return StreamtError(
            Codes.E407_DEPLOY_ERROR,
            f"Kafka Connect cluster '{self.cluster}' answered HTTP {status} when asked to {doing}.",
            "Check the Connect worker's log; the response body is not shown because it may hold configuration.",
        )
