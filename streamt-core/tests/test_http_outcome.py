"""The shared HTTP outcome classifier (streamt.sdk): sent or not, and what a status means for a write."""

from __future__ import annotations

import pytest
import requests
import urllib3
from streamt.sdk import FAILED, UNKNOWN, Codes, auth_refused, code_for_status, never_sent, write_outcome


def test_a_refused_connection_or_tls_failure_or_connect_timeout_was_never_sent() -> None:
    refused = requests.exceptions.ConnectionError(urllib3.exceptions.NewConnectionError(None, "refused"))
    assert never_sent(refused)
    assert never_sent(requests.exceptions.SSLError("bad certificate"))
    assert never_sent(requests.exceptions.ConnectTimeout("slow"))


def test_a_read_timeout_or_dropped_connection_may_have_been_sent() -> None:
    assert not never_sent(requests.exceptions.ReadTimeout("no answer"))
    assert not never_sent(requests.exceptions.ConnectionError(urllib3.exceptions.ProtocolError("reset")))
    assert not never_sent(RuntimeError("not a requests error"))


@pytest.mark.parametrize(
    ("status", "changed_before", "outcome"),
    [(400, False, FAILED), (422, False, FAILED), (409, False, FAILED), (408, False, UNKNOWN), (500, False, UNKNOWN),
     (503, False, UNKNOWN), (302, False, UNKNOWN), (400, True, UNKNOWN)],
)  # fmt: skip
def test_a_write_fails_only_when_refused_before_any_change(status: int, changed_before: bool, outcome: str) -> None:
    result = write_outcome(status, changed_before=changed_before)
    assert (result.status, result.error) == (outcome, f"HTTP{status}")


def test_credentials_refused_map_to_e404() -> None:
    assert auth_refused(401) and auth_refused(403) and not auth_refused(404)
    assert code_for_status(403) is Codes.E404_AUTH_FAILED and code_for_status(500) is Codes.E407_DEPLOY_ERROR
