"""The Connect client's reads ask again while the worker group rebalances, and only then.

Against a real HTTP server in the test process (no service, no mock of ``requests``) that answers
a scripted sequence of statuses and counts what it was asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from streamt.sdk import Codes, StreamtError
from streamt_connect import client as connect_client
from streamt_connect.client import ConnectClient
from streamt_testing import json_server

REBALANCE_EXPECTED = (
    500,
    {"error_code": 500, "message": "Request cannot be completed because a rebalance is expected"},
)
REBALANCING = (409, {"error_code": 409, "message": "Cannot complete request momentarily due to stale configuration"})
# A body that echoes configuration: it must never reach an error message.
SECRET_ECHO = (500, {"error_code": 500, "message": "connection.password=hunter2 rejected"})
LISTING = (200, {"orders": {"status": {"name": "orders"}}})


class Worker:
    """A scripted worker: each request takes the next answer, the last one repeats."""

    def __init__(self, answers: list[tuple[int, Any]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def answer(self, method: str, path: str) -> tuple[int, Any]:
        self.asked.append(f"{method} {path}")
        return self.answers[min(len(self.asked), len(self.answers)) - 1]


@pytest.fixture
def worker() -> Iterator[Callable[[list[tuple[int, Any]]], tuple[Worker, ConnectClient]]]:
    with ExitStack() as servers:

        def start(answers: list[tuple[int, Any]]) -> tuple[Worker, ConnectClient]:
            scripted = Worker(answers)
            return scripted, ConnectClient(servers.enter_context(json_server(scripted.answer)), "main")

        yield start


@pytest.fixture(autouse=True)
def short_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect_client, "REBALANCE_PAUSE_SECONDS", 0.05)


def _error(exc: pytest.ExceptionInfo[StreamtError]) -> tuple[str, str]:
    diagnostic = exc.value.diagnostics[0]
    return diagnostic.code.code, diagnostic.message


def test_a_read_during_a_rebalance_is_asked_again_until_it_answers(worker: Any) -> None:
    scripted, client = worker([REBALANCING, REBALANCE_EXPECTED, REBALANCING, LISTING])
    assert client.read("/connectors?expand=status", "list connectors") == LISTING[1]
    assert scripted.asked == ["GET /connectors?expand=status"] * 4


def test_a_rebalance_that_never_ends_fails_closed_within_the_read_budget(
    worker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connect_client, "READ_DEADLINE_SECONDS", 1.5)
    scripted, client = worker([REBALANCE_EXPECTED])
    started = time.monotonic()
    with pytest.raises(StreamtError) as raised:
        client.read("/connectors", "list connectors")
    assert time.monotonic() - started < 1.5
    assert len(scripted.asked) > 2  # asked again, then gave up
    code, message = _error(raised)
    assert code == Codes.E407_DEPLOY_ERROR.code
    assert message == "Kafka Connect cluster 'main' answered HTTP 500 when asked to list connectors."


def test_a_500_that_is_not_a_rebalance_fails_at_once_without_its_body(worker: Any) -> None:
    scripted, client = worker([SECRET_ECHO, LISTING])
    with pytest.raises(StreamtError) as raised:
        client.read("/connectors", "list connectors")
    assert scripted.asked == ["GET /connectors"]
    code, message = _error(raised)
    assert code == Codes.E407_DEPLOY_ERROR.code
    assert "hunter2" not in f"{message} {raised.value}" and "password" not in message


def test_get_returns_the_answer_after_the_rebalance_a_404_included(worker: Any) -> None:
    scripted, client = worker([REBALANCE_EXPECTED, (404, {"error_code": 404, "message": "not found"})])
    assert client.get("/connectors/orders") == (404, {"error_code": 404, "message": "not found"})
    assert len(scripted.asked) == 2


def test_a_write_is_never_asked_again(worker: Any) -> None:
    scripted, client = worker([REBALANCE_EXPECTED, (201, {})])
    assert client.request("POST", "/connectors", {"name": "orders", "config": {}}) == REBALANCE_EXPECTED
    assert scripted.asked == ["POST /connectors"]
