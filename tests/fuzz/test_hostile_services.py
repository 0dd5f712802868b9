"""Every HTTP client streamt owns against a hostile service (issue 28, findings 1 and 5).

The fault server (``fault_server.py``) stalls, drips one header byte at a time, sends an endless
body, deeply nested JSON, garbage or a reset. Whatever it does, a read answers one coded error
within its deadline (``E429`` for the deadline, ``E430`` for an answer that is not acceptable,
``E406`` for a reset), never a hang, a ``RecursionError`` or unbounded memory; a write whose
answer never comes is ``MaybeSent`` (its outcome is unknown), within the same deadline.
``STREAMT_TEST_HTTP_DEADLINE`` shortens every deadline so the suite stays fast.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fault_server import MODES, fault_server, silent_listener
from harness import _alarm, check_contract, run_subprocess
from streamt.bounded_http import DEADLINE_CAP_ENV
from streamt.errors import StreamtError
from streamt.http_outcome import MaybeSent
from streamt_connect.client import ConnectClient
from streamt_flink.gateway_client import SqlGatewayClient
from streamt_flink.rest import FlinkRestClient
from streamt_gateway.client import GatewayClient
from streamt_kafka.registry_live import RegistryClient
from streamt_kstreams import base_image, build, engine
from streamt_testing import write_project

DEADLINE = 1.5
MEMORY = 512 * 1024 * 1024  # address space of a child CLI run: an endless answer must not grow past it
# Generous for a loaded 2-core machine, far below any deadline the clients have by default (15 s and more).
WITHIN = DEADLINE + 4.0
EXPECTED = {
    "stall": "E429_SERVICE_DEADLINE_EXCEEDED",
    "drip": "E429_SERVICE_DEADLINE_EXCEEDED",
    "endless": "E430_SERVICE_RESPONSE_INVALID",
    "deep": "E430_SERVICE_RESPONSE_INVALID",
    "garbage": "E430_SERVICE_RESPONSE_INVALID",
    "reset": "E406_CONNECTION_REFUSED",
}

READS: dict[str, Callable[[str], Any]] = {
    "schema-registry": lambda url: RegistryClient(url).latest("orders-value"),
    "connect": lambda url: ConnectClient(url, "main").read("/connectors", "list connectors"),
    "flink-rest": lambda url: FlinkRestClient(url).jobs(),
    "flink-sql-gateway": lambda url: SqlGatewayClient(url).info(),
    "conduktor-gateway": lambda url: GatewayClient(url).read("/interceptor", "list interceptors"),
}
WRITES: dict[str, Callable[[str], Any]] = {
    "connect": lambda url: ConnectClient(url, "main").request("POST", "/connectors", {"name": "c", "config": {}}),
    "flink-rest": lambda url: FlinkRestClient(url).cancel("0" * 32),
    "flink-sql-gateway": lambda url: SqlGatewayClient(url).open_session(),
    "conduktor-gateway": lambda url: GatewayClient(url).request("PUT", "/interceptor", {"name": "i"}),
}


@pytest.fixture(autouse=True)
def short_deadlines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEADLINE_CAP_ENV, str(DEADLINE))


def _timed(call: Callable[[], Any]) -> tuple[BaseException | None, float]:
    started = time.monotonic()
    with _alarm(WITHIN + 5):  # on a client without the bounded layer, a hang ends as a failure
        try:
            call()
        except Exception as exc:  # the outcome under test
            return exc, time.monotonic() - started
    return None, time.monotonic() - started


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("client", sorted(READS))
def test_a_read_answers_one_coded_error_within_its_deadline(client: str, mode: str) -> None:
    with fault_server(mode) as url:
        error, seconds = _timed(lambda: READS[client](url))
    assert isinstance(error, StreamtError), f"{client} under {mode}: {error!r}"
    assert [d.code.code for d in error.diagnostics] == [EXPECTED[mode]], error.diagnostics
    assert seconds < WITHIN, f"{client} under {mode} took {seconds:.1f} s"
    assert url not in str(error.diagnostics)  # the address is configuration, not shown


@pytest.mark.parametrize("mode", ["stall", "drip", "endless"])
@pytest.mark.parametrize("client", sorted(WRITES))
def test_a_write_without_a_complete_answer_may_have_happened(client: str, mode: str) -> None:
    with fault_server(mode) as url:
        error, seconds = _timed(lambda: WRITES[client](url))
    assert isinstance(error, MaybeSent), f"{client} under {mode}: {error!r}"
    assert seconds < WITHIN, f"{client} under {mode} took {seconds:.1f} s"


def test_a_stalled_kafka_broker_is_the_timeout_code_not_refused(tmp_path: Path) -> None:
    """Finding 5: a broker that accepts TCP and never answers was ``E406_CONNECTION_REFUSED``."""
    with silent_listener() as bootstrap:
        root = write_project(tmp_path / "p", {"stream_project.yml": {
            "project": {"name": "stalled"},
            "runtime": {"kafka": {"bootstrap_servers": bootstrap}},
            "models": [{"name": "orders", "materialized": "topic"}],
        }})  # fmt: skip
        started = time.monotonic()
        run = run_subprocess(["plan", "-p", str(root)], seconds=60, env={"STREAMT_KAFKA_CONNECT_TIMEOUT": "1"})
        seconds = time.monotonic() - started
    envelope = check_contract(run, tmp_path)
    (error,) = envelope["errors"]
    assert error["code"] == "E429_SERVICE_DEADLINE_EXCEEDED", envelope["errors"]
    assert "did not answer within 1 s" in error["message"] and "STREAMT_KAFKA_CONNECT_TIMEOUT" in error["suggestion"]
    assert bootstrap not in json.dumps(envelope)
    assert seconds < 20, f"{seconds:.1f} s"


# --- the Docker Engine (docker-py, its own adapters): every request bounded, streams too --------------


def _engine_url(url: str) -> str:
    return url.replace("http://", "tcp://")


@pytest.mark.parametrize("mode", MODES)
def test_the_docker_engine_answers_one_coded_error_within_its_deadline(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with fault_server(mode) as url:
        monkeypatch.setenv("DOCKER_HOST", _engine_url(url))
        error, seconds = _timed(engine.client)
    assert isinstance(error, StreamtError), f"docker under {mode}: {error!r}"
    assert [d.code.code for d in error.diagnostics] == [EXPECTED[mode]], error.diagnostics
    assert seconds < WITHIN, f"docker under {mode} took {seconds:.1f} s"
    assert url.split("//")[1] not in str(error.diagnostics)


STREAMS: dict[str, Callable[[Any], Any]] = {
    "pull": lambda docker: base_image._pull(docker, base_image.PINNED, time.monotonic() + 600),
    "build": lambda docker: build._engine_build(
        docker, b"", base_image.PINNED, "sha256:" + "0" * 64, time.monotonic() + 600
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stream", sorted(STREAMS))
def test_an_engine_progress_stream_is_bounded_in_time_and_size(
    stream: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull or build within a 600 s budget: a stalled or endless stream is the service's code, not a wait."""
    with fault_server(mode) as url:
        monkeypatch.setenv("DOCKER_HOST", _engine_url(url))
        docker = engine.connect()  # no request yet: the stream is the first
        try:
            error, seconds = _timed(lambda: STREAMS[stream](docker))
        finally:
            docker.close()
    assert isinstance(error, StreamtError), f"{stream} under {mode}: {error!r}"
    assert [d.code.code for d in error.diagnostics] == [EXPECTED[mode]], error.diagnostics
    assert seconds < WITHIN, f"{stream} under {mode} took {seconds:.1f} s"


@pytest.mark.parametrize("mode", MODES)
def test_runtime_build_against_a_hostile_engine_answers_one_envelope_in_bounded_memory(
    mode: str, tmp_path: Path
) -> None:
    with fault_server(mode) as url:
        env = {"DOCKER_HOST": _engine_url(url), DEADLINE_CAP_ENV: str(DEADLINE)}
        started = time.monotonic()
        run = run_subprocess(["runtime", "build", "--timeout", "30"], seconds=60, env=env, memory=MEMORY)
        seconds = time.monotonic() - started
    envelope = check_contract(run, tmp_path)
    assert [error["code"] for error in envelope["errors"]] == [EXPECTED[mode]], envelope["errors"]
    assert url.split("//")[1] not in run.stdout.decode()
    assert seconds < 30, f"runtime build under {mode}: {seconds:.1f} s"


# --- OpenLineage delivery: only W112, within the budget, whatever the transport file says ------------

HEAD = "project: {name: shop}\nruntime: {kafka: {bootstrap_servers: '127.0.0.1:1'}}\n"
SCHEMA_ONLY = HEAD + (
    "sources: [{name: orders, topic: orders.raw, columns: [{name: id, type: STRING, required: true}]}]\n"
    "tests: [{name: ok, model: orders, type: schema, assertions: [{not_null: {columns: [id]}}]}]\n"
)


@pytest.mark.parametrize("mode", ["stall", "drip", "endless", "deep"])
def test_openlineage_delivery_to_a_hostile_receiver_adds_only_w112(mode: str, tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"stream_project.yml": SCHEMA_ONLY})
    with fault_server(mode) as url:
        # A transport file that asks for ten minutes and retries: the event budget caps both.
        transport = {"type": "http", "url": url, "timeout": 600, "retry": {"total": 3, "backoff_factor": 30}}
        config = tmp_path / "openlineage.yml"
        config.write_text(json.dumps({"transport": transport}))
        env = {"OPENLINEAGE_CONFIG": str(config), DEADLINE_CAP_ENV: str(DEADLINE)}
        started = time.monotonic()
        run = run_subprocess(
            ["test", "-p", str(root), "--emit-openlineage", "--openlineage-job-namespace", "https://ol.example/ns"],
            seconds=60,
            env=env,
            memory=MEMORY,
        )
        seconds = time.monotonic() - started
    envelope = check_contract(run, tmp_path)
    assert envelope["status"] == "ok" and run.exit_code == 0, envelope["errors"]
    # A 200 answer delivered the event, however odd its body: the receiver's JSON is never read.
    delivered = mode == "deep"
    expected = [] if delivered else ["W112_OPENLINEAGE_EMIT_FAILED"] * 2
    assert [w["code"] for w in envelope["warnings"]] == expected
    assert url not in json.dumps(envelope)
    # START and COMPLETE, each within its budget, plus the start of the process.
    assert seconds < 2 * (DEADLINE + 1) + 15, f"{mode}: {seconds:.1f} s"


# --- a whole command: one envelope, within the deadline, in 512 MB of address space ----------------------

SERVICE_CODES = {"E406_CONNECTION_REFUSED", "E429_SERVICE_DEADLINE_EXCEEDED", "E430_SERVICE_RESPONSE_INVALID"}


def _pipeline(root: Path, bootstrap: str, url: str) -> Path:
    """A source, a Flink model and a Connect sink; Flink and Connect are the hostile service."""
    return write_project(
        root,
        {
            "stream_project.yml": {
                "project": {"name": "hostile"},
                "runtime": {
                    "kafka": {"bootstrap_servers": bootstrap},
                    "flink": {"default": "local", "clusters": {"local": {"rest_url": url, "sql_gateway_url": url}}},
                    "connect": {"default": "main", "clusters": {"main": {"rest_url": url}}},
                },
                "sources": [{"name": "raw", "topic": "hostile.raw", "columns": [{"name": "id", "type": "STRING"}]}],
                "models": [
                    {"name": "up", "materialized": "flink", "sql": 'SELECT id FROM {{ source("raw") }}'},
                    {
                        "name": "out",
                        "from": [{"ref": "up"}],
                        "sink": {
                            "connector": "org.apache.kafka.connect.file.FileStreamSinkConnector",
                            "config": {"file": "/dev/null"},
                        },
                    },
                ],
            }
        },
    )


@pytest.mark.parametrize("mode", MODES)
def test_online_plan_against_a_hostile_service_answers_one_envelope_in_bounded_time_and_memory(
    mode: str, tmp_path: Path, kafka_bootstrap: str
) -> None:
    """``plan`` reads the Flink job list and the connector (``status`` and ``observe`` read only deployed
    resources, through the same clients)."""
    command = "plan"
    with fault_server(mode) as url:
        root = _pipeline(tmp_path / "p", kafka_bootstrap, url)
        started = time.monotonic()
        run = run_subprocess(
            [command, "-p", str(root)], seconds=60, env={DEADLINE_CAP_ENV: str(DEADLINE)}, memory=MEMORY
        )
        seconds = time.monotonic() - started
    envelope = check_contract(run, tmp_path)
    codes = {error["code"] for error in envelope["errors"]}
    assert codes and codes <= SERVICE_CODES, envelope["errors"]
    assert EXPECTED[mode] in codes, envelope["errors"]
    assert url not in run.stdout.decode()
    assert seconds < 30, f"{command} under {mode}: {seconds:.1f} s"
