"""A thin Conduktor Gateway admin API v2 client that never shows a response body or a credential.

Gateway error bodies can echo resource configuration, so failures are reported as a code and an
HTTP status only. Transport failures are split in two: a request that provably never left (refused
connection, TLS or connect timeout) and one that may have reached the Gateway (read timeout,
dropped connection): a write in the second case has an unknown outcome.
"""

from __future__ import annotations

from typing import Any

import attrs
from streamt import sdk
from streamt.sdk import Codes, MaybeSent, StreamtError, auth_refused, never_sent

DEADLINE_SECONDS = 35.0  # the total deadline of one request (the bounded HTTP layer of streamt.sdk)
CONNECT_TIMEOUT_SECONDS = 5.0
API = "/gateway/v2"
PASSTHROUGH = "passthrough"


@attrs.frozen
class GatewayClient:
    url: str
    vcluster: str = PASSTHROUGH
    username: str = "admin"
    password: str = attrs.field(default="", repr=False)
    # The bounded HTTP layer (and with it `requests`) is looked up when a client is made, not when this
    # module is imported: an offline plan imports the planner beside this client and sends nothing.
    _session: Any = attrs.field(
        factory=lambda: sdk.bounded_session(
            DEADLINE_SECONDS, connect_timeout=CONNECT_TIMEOUT_SECONDS, provider="gateway"
        ),
        init=False,
        eq=False,
        repr=False,
    )

    def request(
        self, method: str, path: str, body: Any = None, params: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """``(status, parsed JSON or None)``; ``StreamtError`` when nothing was sent or a read failed,
        ``MaybeSent`` when a write may have reached the Gateway."""
        import requests

        try:
            response = self._session.request(
                method,
                self.url.rstrip("/") + API + path,
                params=params,
                json=body,
                headers={"Accept": "application/json"},
                auth=(self.username, self.password),
                allow_redirects=False,
            )
            payload = sdk.json_or_none(response.content)
        except requests.exceptions.SSLError:
            raise StreamtError(
                Codes.E405_SSL_ERROR,
                "The TLS handshake with the Conduktor Gateway admin API failed.",
                "Check runtime.conduktor.gateway.admin_url and its certificate.",
            ) from None
        except requests.exceptions.RequestException as exc:
            if never_sent(exc):
                raise self.unreachable() from None
            bounded = sdk.bounded_error(exc, "The Conduktor Gateway admin API", "runtime.conduktor.gateway.admin_url")
            if bounded is not None and method == "GET":
                raise bounded from None
            raise MaybeSent(type(exc).__name__) from None
        if auth_refused(response.status_code):
            raise StreamtError(
                Codes.E404_AUTH_FAILED,
                f"The Conduktor Gateway admin API refused the credentials (HTTP {response.status_code}).",
                "Check runtime.conduktor.gateway.username/password (writes need an admin user).",
            )
        return response.status_code, payload

    def read(self, path: str, doing: str) -> Any:
        """A GET of this vCluster's collection that must answer 200 with a JSON list."""
        try:
            status, payload = self.request("GET", path, params={"vcluster": self.vcluster})
        except MaybeSent:
            raise self.unreachable() from None
        if status == 404:
            raise StreamtError(
                Codes.E407_DEPLOY_ERROR,
                f"The Conduktor Gateway has no virtual cluster '{self.vcluster}' (HTTP 404 when asked to {doing}).",
                "Create the virtual cluster first, or fix runtime.conduktor.gateway.virtual_cluster; "
                "streamt does not manage virtual clusters.",
            )
        if status != 200 or not isinstance(payload, list):
            raise self.unexpected(doing, status)
        return payload

    def unreachable(self) -> StreamtError:
        return StreamtError(
            Codes.E406_CONNECTION_REFUSED,
            "The Conduktor Gateway admin API did not answer.",
            "Check that runtime.conduktor.gateway.admin_url is reachable.",
        )

    def unexpected(self, doing: str, status: int) -> StreamtError:
        return StreamtError(
            Codes.E407_DEPLOY_ERROR,
            f"The Conduktor Gateway admin API answered HTTP {status} when asked to {doing}.",
            "Check the Gateway's log; the response body is not shown because it may hold configuration.",
        )
