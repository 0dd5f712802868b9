"""The Flink REST and SQL Gateway clients classify failures with the shared HTTP helper.

Against a real HTTP server in the test process (no service, no mock of ``requests``): a write
that provably changed nothing is a ``StreamtError`` (the deployer reports ``failed``); a write
that may have reached the cluster is ``MaybeSent`` (the deployer reports ``unknown``, never
``failed``). Reads stay ``E406``: an unreadable cluster must not look empty.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from types import SimpleNamespace
from typing import Any

import pytest
from streamt.sdk import FAILED, UNKNOWN, UPDATE, Action, Artifact, MaybeSent, StreamtError
from streamt_flink import gateway_client, rest
from streamt_flink.config import FlinkCluster, FlinkRuntime
from streamt_flink.deployers import FlinkJobDeployer
from streamt_flink.gateway_client import SqlGatewayClient
from streamt_flink.rest import FlinkRestClient
from streamt_testing import json_server

# method -> what the server does: (status, JSON body), or "drop" (read the request, close the socket).
Script = dict[str, Any]


@pytest.fixture
def server() -> Iterator[Callable[[Script], str]]:
    with ExitStack() as servers:

        def start(script: Script) -> str:
            def answer(method: str, path: str) -> tuple[int, Any] | None:
                reply = script.get(f"{method} {path.split('?')[0]}", script.get(method))
                if reply == "drop":
                    return None
                return reply if reply is not None else (404, {})

            return servers.enter_context(json_server(answer))

        yield start


def _closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def _code(exc: StreamtError) -> str:
    return exc.diagnostics[0].code.code


def test_a_cancel_that_never_left_is_a_streamt_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rest, "CONNECT_TIMEOUT_SECONDS", 1.0)
    with pytest.raises(StreamtError) as refused:
        FlinkRestClient(_closed_port()).cancel("j1")
    assert _code(refused.value) == "E406_CONNECTION_REFUSED"


@pytest.mark.parametrize(("status", "code"), [(409, "E407_DEPLOY_ERROR"), (403, "E404_AUTH_FAILED")])
def test_a_cancel_refused_with_a_4xx_changed_nothing(server: Any, status: int, code: str) -> None:
    with pytest.raises(StreamtError) as refused:
        FlinkRestClient(server({"PATCH": (status, {"errors": ["no"]})})).cancel("j1")
    assert _code(refused.value) == code


@pytest.mark.parametrize("reply", [(503, {}), (408, {}), "drop"])
def test_a_cancel_without_a_clear_answer_may_have_happened(server: Any, reply: Any) -> None:
    with pytest.raises(MaybeSent):
        FlinkRestClient(server({"PATCH": reply})).cancel("j1")


def test_a_stop_accepted_without_a_trigger_may_be_under_way(server: Any) -> None:
    with pytest.raises(MaybeSent, match="NoTriggerId"):
        FlinkRestClient(server({"POST": (202, {})})).stop_with_savepoint("j1")


@pytest.mark.parametrize("reply", [(500, {}), "drop"])
def test_a_read_that_fails_is_still_e406(server: Any, reply: Any) -> None:
    with pytest.raises(StreamtError) as refused:
        FlinkRestClient(server({"GET": reply})).jobs()
    assert _code(refused.value) == "E406_CONNECTION_REFUSED"


def test_a_statement_the_gateway_refuses_is_e403(server: Any) -> None:
    client = SqlGatewayClient(server({"POST": (400, {"errors": ["org.apache.flink.table.api.ValidationException"]})}))
    with pytest.raises(StreamtError) as refused:
        client.execute("s1", "INSERT INTO x SELECT 1")
    assert _code(refused.value) == "E403_FLINK_SQL_ERROR"


def test_a_statement_sent_to_nobody_is_e406(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gateway_client, "CONNECT_TIMEOUT_SECONDS", 1.0)
    with pytest.raises(StreamtError) as refused:
        SqlGatewayClient(_closed_port()).execute("s1", "INSERT INTO x SELECT 1")
    assert _code(refused.value) == "E406_CONNECTION_REFUSED"


@pytest.mark.parametrize(
    "script",
    [
        {"POST": (502, {})},  # a proxy in front of the gateway gave up: it may have forwarded it
        {"POST": "drop"},
        {"POST": (200, {"operationHandle": "op1"}), "GET": "drop"},  # accepted, then no result
    ],
    ids=["5xx", "dropped", "result-unreadable"],
)
def test_a_statement_that_may_have_been_submitted_is_maybe_sent(server: Any, script: Script) -> None:
    with pytest.raises(MaybeSent):
        SqlGatewayClient(server(script)).execute("s1", "INSERT INTO x SELECT 1")


def _replacing(url: str) -> tuple[FlinkJobDeployer, Action, Artifact]:
    flink = FlinkRuntime(clusters={"local": FlinkCluster(rest_url=url, sql_gateway_url=url)})
    runtime = SimpleNamespace(section={"flink": flink}.get)
    spec = {"cluster": "local", "pipeline_name": "shop/dev/counts", "statements": ["INSERT INTO `sink` SELECT 1"]}
    artifact = Artifact("flink_job", "counts", "counts", spec)
    action = Action(
        action=UPDATE,
        kind="flink_job",
        name="counts",
        identity="counts",
        ownership="managed",
        provider="streamt-flink",
        checksum=artifact.checksum,
        evidence={"upgrade": {"mode": "stateless", "job_id": "old"}},
    )
    return FlinkJobDeployer(runtime, confirm_seconds=0.5), action, artifact


@pytest.mark.parametrize(("reply", "status"), [((409, {}), FAILED), ((503, {}), UNKNOWN), ("drop", UNKNOWN)])
def test_a_stateless_replacement_is_failed_only_when_the_cancel_changed_nothing(
    server: Any, reply: Any, status: str
) -> None:
    deployer, action, artifact = _replacing(server({"PATCH": reply}))
    outcome = deployer.apply(UPDATE, [(action, artifact)])["counts"]
    assert outcome.status == status


def test_an_insert_that_may_have_been_submitted_is_unknown_not_failed(server: Any) -> None:
    url = server(
        {
            "GET /jobs/overview": (200, {"jobs": []}),
            "POST /v2/sessions": (200, {"sessionHandle": "s1"}),
            "POST /v2/sessions/s1/statements": (200, {"operationHandle": "op1"}),
            "GET /v2/sessions/s1/operations/op1/result/0": "drop",
            "DELETE": (200, {}),
        }
    )
    deployer, _action, artifact = _replacing(url)
    submitted = deployer._submit(artifact, list(artifact.spec["statements"]))
    assert submitted.outcome.status == UNKNOWN and submitted.outcome.error == "ResultUnreadable"


@pytest.mark.parametrize(
    "page",
    [
        {"resultType": "EOS", "results": "rows"},
        {"resultType": "EOS", "results": {"columns": [5], "data": []}},
        {"resultType": "EOS", "results": {"columns": [], "data": [{"fields": 7}]}},
    ],
)
def test_a_result_page_not_shaped_as_the_api_says_may_mean_a_running_statement(server: Any, page: Any) -> None:
    """Issue 28: a malformed answer of the gateway is an unknown outcome, never an internal error."""
    url = server({"POST": (200, {"sessionHandle": "s", "operationHandle": "o"}), "GET": (200, page)})
    with pytest.raises(MaybeSent, match="UnreadableResult"):
        SqlGatewayClient(url).execute("s", "SELECT 1")


def test_a_session_opened_without_a_handle_may_exist(server: Any) -> None:
    with pytest.raises(MaybeSent, match="NoSessionHandle"):
        SqlGatewayClient(server({"POST": (200, {"handle": 5})})).open_session()
