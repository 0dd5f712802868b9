"""`--emit-openlineage` on `test` and `apply`: the reference's lifecycle through a real local HTTP
receiver and a File transport, every event validated against the official OpenLineage schemas
(vendored in ``shared/schemas/openlineage/spec/``, test data only).
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from shared_material import SHARED
from streamt_testing import closed_port, run_cli

SPEC = SHARED / "schemas" / "openlineage" / "spec"
JOB_NS = "https://lineage.example/namespaces/prod"
STREAMT = [str(Path(sys.executable).with_name("streamt"))]


def _registry() -> tuple[dict[str, Any], Registry]:
    assert (SPEC / "OpenLineage.json").is_file(), f"the official OpenLineage schemas are expected under {SPEC}"
    resources, core = [], {}
    for path in sorted(SPEC.rglob("*.json")):
        contents = json.loads(path.read_text())
        resources.append((contents["$id"], Resource.from_contents(contents, default_specification=DRAFT202012)))
        if path.name == "OpenLineage.json":
            core = contents
    return core, Registry().with_resources(resources)


CORE, REGISTRY = _registry()


def valid(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every event against the RunEvent schema, and every facet against its own schema."""
    checker = jsonschema.Draft202012Validator(
        {"$ref": CORE["$id"] + "#/$defs/RunEvent"}, registry=REGISTRY, format_checker=jsonschema.FormatChecker()
    )
    for event in events:
        checker.validate(event)
        facets = [*event["job"].get("facets", {}).values(), *event["run"].get("facets", {}).values()]
        for facet in facets:
            jsonschema.Draft202012Validator({"$ref": facet["_schemaURL"]}, registry=REGISTRY).validate(facet)
    return events


class Receiver:
    """A real HTTP lineage endpoint on loopback that records every POSTed event."""

    def __init__(self) -> None:
        events: list[dict[str, Any]] = []
        self.events = events

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                events.append({"path": self.path, "event": json.loads(body)})
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        # shutdown() returns only at the loop's next poll: 0.5 s by default, per test.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def parse_time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def transport_file(tmp_path: Path, transport: dict[str, Any]) -> Path:
    path = tmp_path / f"openlineage-{uuid.uuid4().hex[:6]}.yml"
    path.write_text(json.dumps({"transport": transport}))  # JSON is YAML
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def schema_project(streamt_project, tests: list[dict[str, Any]] | None = None, bootstrap: str = "127.0.0.1:1") -> Path:
    return streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "shop"},
                "runtime": {"kafka": {"bootstrap_servers": bootstrap}},
                "sources": [
                    {
                        "name": "orders",
                        "topic": "orders.raw",
                        "columns": [{"name": "id", "type": "STRING", "required": True}],
                    }
                ],
                "tests": tests
                if tests is not None
                else [
                    {
                        "name": "ok",
                        "model": "orders",
                        "type": "schema",
                        "assertions": [{"not_null": {"columns": ["id"]}}],
                    }
                ],
            }
        }
    )


@pytest.fixture
def ol_env(monkeypatch: pytest.MonkeyPatch):
    def set_config(path: Path | None) -> None:
        for name in ("OPENLINEAGE_CONFIG", "OPENLINEAGE_NAMESPACE", "OPENLINEAGE_URL"):
            monkeypatch.delenv(name, raising=False)
        if path is not None:
            monkeypatch.setenv("OPENLINEAGE_CONFIG", str(path))

    return set_config


# --- test -------------------------------------------------------------------------------------------


def test_test_emits_start_and_complete_to_a_file(streamt_project, ol_env, tmp_path: Path) -> None:
    log = tmp_path / "ol.jsonl"
    ol_env(transport_file(tmp_path, {"type": "file", "log_file_path": str(log)}))
    project = schema_project(streamt_project)
    plain = run_cli("test", "-p", project)
    outcome = run_cli("test", "-p", project, "--emit-openlineage", "--openlineage-job-namespace", JOB_NS)
    assert outcome.ok and outcome.data["tests"][0]["status"] == "passed"
    assert outcome.data["summary"] == plain.data["summary"]
    start, complete = valid(read_jsonl(log))
    assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
    assert start["run"]["runId"] == complete["run"]["runId"]
    assert uuid.UUID(start["run"]["runId"]).version == 4
    assert start["job"] == complete["job"]
    assert (start["job"]["namespace"], start["job"]["name"]) == (JOB_NS, "shop.default.test")
    assert start["inputs"] == [] and start["outputs"] == []  # schema tests contribute no dataset


def test_test_reports_fail_to_a_real_http_receiver_with_sample_inputs(
    streamt_project, ol_env, tmp_path: Path, receiver: Receiver, kafka_bootstrap: str
) -> None:
    ol_env(transport_file(tmp_path, {"type": "http", "url": receiver.url}))
    topic = f"t15-ol-{uuid.uuid4().hex[:8]}"  # absent: the sample test errors, so the run FAILs
    tests = [{"name": "s", "model": "orders", "type": "sample", "assertions": [{"not_null": {"columns": ["id"]}}]}]
    project = schema_project(streamt_project, tests, bootstrap=kafka_bootstrap)
    text = (project / "stream_project.yml").read_text().replace("orders.raw", topic)
    (project / "stream_project.yml").write_text(text)
    outcome = run_cli("test", "-p", project, "--emit-openlineage", "--openlineage-job-namespace", JOB_NS)
    assert outcome.exit_code == 1 and outcome.warning_codes == []
    assert [e["path"] for e in receiver.events] == ["/api/v1/lineage"] * 2
    start, fail = valid([e["event"] for e in receiver.events])
    assert (start["eventType"], fail["eventType"]) == ("START", "FAIL")
    host, port = kafka_bootstrap.split(":")
    assert start["inputs"] == [
        {"namespace": f"kafka://{host}:{int(port)}", "name": topic, "facets": {}, "inputFacets": {}}
    ]


def test_a_receiver_that_is_down_adds_only_w112(streamt_project, ol_env, tmp_path: Path) -> None:
    ol_env(
        transport_file(tmp_path, {"type": "http", "url": f"http://127.0.0.1:{closed_port()}", "retry": {"total": 0}})
    )
    project = schema_project(streamt_project)
    plain = run_cli("test", "-p", project)
    outcome = run_cli("test", "-p", project, "--emit-openlineage", "--openlineage-job-namespace", JOB_NS)
    assert outcome.exit_code == plain.exit_code == 0
    assert outcome.warning_codes == ["W112_OPENLINEAGE_EMIT_FAILED", "W112_OPENLINEAGE_EMIT_FAILED"]
    assert {k: v for k, v in outcome.data.items() if k != "tests"} == {
        k: v for k, v in plain.data.items() if k != "tests"
    }
    assert [t["status"] for t in outcome.data["tests"]] == [t["status"] for t in plain.data["tests"]]


@pytest.mark.parametrize(
    ("transport", "args", "env_ns", "needle"),
    [
        (None, ["--openlineage-job-namespace", JOB_NS], None, "explicit File or HTTP transport"),
        ({"type": "console"}, ["--openlineage-job-namespace", JOB_NS], None, "file or http"),
        ({"type": "file", "log_file_path": "x"}, [], None, "needs a job namespace"),
        ({"type": "file", "log_file_path": "x"}, ["--openlineage-job-namespace", "a b"], None, "whitespace"),
        ({"type": "file", "log_file_path": "x"}, ["--openlineage-job-namespace", "https://u:p@h/x"], None, "user"),
        ({"type": "http"}, ["--openlineage-job-namespace", JOB_NS], None, "cannot be built"),
        (
            {"type": "file", "log_file_path": "x"},
            ["--openlineage-job-namespace", JOB_NS, "--openlineage-kafka-namespace", "kafka://u:p@h:1"],
            None,
            "kafka://HOST:PORT",
        ),
    ],
)
def test_preflight_problems_are_e506_before_any_test_runs(
    streamt_project, ol_env, tmp_path: Path, transport, args, env_ns, needle
) -> None:
    ol_env(transport_file(tmp_path, transport) if transport else None)
    outcome = run_cli("test", "-p", schema_project(streamt_project), "--emit-openlineage", *args)
    assert outcome.error_codes == ["E506_OPENLINEAGE_INVALID"]
    assert needle in outcome.envelope["errors"][0]["message"]
    assert outcome.data == {}  # no test ran


def test_the_job_namespace_falls_back_to_the_environment(streamt_project, ol_env, tmp_path, monkeypatch) -> None:
    log = tmp_path / "ol.jsonl"
    ol_env(transport_file(tmp_path, {"type": "file", "log_file_path": str(log)}))
    monkeypatch.setenv("OPENLINEAGE_NAMESPACE", "env-namespace")
    assert run_cli("test", "-p", schema_project(streamt_project), "--emit-openlineage").ok
    assert {e["job"]["namespace"] for e in valid(read_jsonl(log))} == {"env-namespace"}


def test_no_run_without_the_flag_or_for_coverage_empty_selection_and_deploy(
    streamt_project, ol_env, tmp_path: Path
) -> None:
    log = tmp_path / "ol.jsonl"
    ol_env(transport_file(tmp_path, {"type": "file", "log_file_path": str(log)}))
    project = schema_project(streamt_project)
    emit = ["--emit-openlineage", "--openlineage-job-namespace", JOB_NS]
    assert run_cli("test", "-p", project).ok  # transport configured, flag absent: strictly opt-in
    assert run_cli("test", "-p", project, "--coverage", *emit).ok
    assert run_cli("test", "-p", project, "--type", "sample", *emit).ok  # empty selection
    assert run_cli("test", "-p", project, "--deploy", *emit).ok
    assert read_jsonl(log) == []


def test_sigterm_after_start_emits_abort(streamt_project, tmp_path: Path) -> None:
    log = tmp_path / "ol.jsonl"
    config = transport_file(tmp_path, {"type": "file", "log_file_path": str(log)})
    # A non-routable broker keeps the sample read waiting after START until its bootstrap timeout.
    tests = [{"name": "s", "model": "orders", "type": "sample", "assertions": [{"not_null": {"columns": ["id"]}}]}]
    project = schema_project(streamt_project, tests, bootstrap="10.255.255.1:9092")
    env = {**os.environ, "OPENLINEAGE_CONFIG": str(config)}
    process = subprocess.Popen(
        [
            *STREAMT,
            "-o",
            "json",
            "test",
            "-p",
            str(project),
            "--emit-openlineage",
            "--openlineage-job-namespace",
            JOB_NS,
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not read_jsonl(log) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGTERM
    start, abort = valid(read_jsonl(log))
    assert (start["eventType"], abort["eventType"]) == ("START", "ABORT")
    assert start["run"]["runId"] == abort["run"]["runId"]


# --- apply ------------------------------------------------------------------------------------------

APPLY_EMIT = ["--emit-openlineage", "--openlineage-job-namespace", JOB_NS]


@pytest.mark.kafka
@pytest.mark.schema_registry
def test_a_successful_apply_emits_start_and_complete_with_the_operation_id(
    kafka_project, ol_env, tmp_path: Path, receiver: Receiver
) -> None:
    ol_env(transport_file(tmp_path, {"type": "http", "url": receiver.url}))
    project = kafka_project()
    outcome = run_cli("apply", "-p", project.path, *APPLY_EMIT)
    assert outcome.ok and "W112_OPENLINEAGE_EMIT_FAILED" not in outcome.warning_codes, outcome.envelope
    start, complete = valid([e["event"] for e in receiver.events])
    assert (start["eventType"], complete["eventType"]) == ("START", "COMPLETE")
    assert start["run"]["runId"] == complete["run"]["runId"] == outcome.data["operation_id"]
    assert (start["job"]["namespace"], start["job"]["name"]) == (JOB_NS, "e2e.default.apply")
    assert start["inputs"] == start["outputs"] == complete["inputs"] == []  # apply emits no datasets
    history = json.loads(sorted((project.state_dir() / "default.history").glob("*.json"))[-1].read_text())
    assert history["operation_id"] == outcome.data["operation_id"]
    assert parse_time(start["eventTime"]) <= parse_time(history["committed_at"])
    assert project.path.joinpath(".streamt").exists() and "REGISTRY" not in json.dumps(receiver.events)

    receiver.events.clear()  # nothing to change: no durable operation, no run
    assert run_cli("apply", "-p", project.path, *APPLY_EMIT).ok
    assert receiver.events == []


@pytest.mark.kafka
@pytest.mark.schema_registry
def test_a_failed_apply_emits_fail_to_a_file(kafka_project, ol_env, tmp_path: Path) -> None:
    log = tmp_path / "apply.jsonl"
    ol_env(transport_file(tmp_path, {"type": "file", "log_file_path": str(log)}))
    project = kafka_project()
    project.model("lookup")["advanced"]["topic"]["replication_factor"] = 5  # one broker: refused
    project.write()
    outcome = run_cli("apply", "-p", project.path, *APPLY_EMIT)
    assert outcome.error_codes == ["E407_DEPLOY_ERROR"]
    start, fail = valid(read_jsonl(log))
    assert (start["eventType"], fail["eventType"]) == ("START", "FAIL")
    assert start["run"]["runId"] == fail["run"]["runId"] == outcome.data["operation_id"]


@pytest.mark.kafka
@pytest.mark.schema_registry
def test_apply_with_the_receiver_down_changes_nothing_but_w112(kafka_project, ol_env, tmp_path: Path) -> None:
    ol_env(
        transport_file(tmp_path, {"type": "http", "url": f"http://127.0.0.1:{closed_port()}", "retry": {"total": 0}})
    )
    project, baseline = kafka_project(), kafka_project("baseline")
    plain = run_cli("apply", "-p", baseline.path)
    outcome = run_cli("apply", "-p", project.path, *APPLY_EMIT)
    assert outcome.ok and outcome.exit_code == 0
    assert outcome.warning_codes == plain.warning_codes + ["W112_OPENLINEAGE_EMIT_FAILED"] * 2
    assert {r["identity"] for r in outcome.data["actions"] if r["result"] == "created"} >= {project.topic("retry")}

    failing = kafka_project("failing")
    failing.model("lookup")["advanced"]["topic"]["replication_factor"] = 5
    failing.write()
    outcome = run_cli("apply", "-p", failing.path, *APPLY_EMIT)
    assert outcome.error_codes == ["E407_DEPLOY_ERROR"] and outcome.data["committed"] is False
    assert outcome.warning_codes == ["W112_OPENLINEAGE_EMIT_FAILED"] * 2


@pytest.mark.kafka
@pytest.mark.schema_registry
def test_apply_with_a_stalled_receiver_ends_within_the_budget_and_releases_the_lock(
    kafka_project, ol_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A receiver that accepts connections and never answers; the transport file asks for ten minutes.
    with socket.create_server(("127.0.0.1", 0)) as stalled:
        url = f"http://127.0.0.1:{stalled.getsockname()[1]}"
        ol_env(transport_file(tmp_path, {"type": "http", "url": url, "timeout": 600}))
        monkeypatch.setenv("STREAMT_TEST_HTTP_DEADLINE", "1")  # the 10 s event budget, shortened
        project = kafka_project()
        started = time.monotonic()
        outcome = run_cli("apply", "-p", project.path, *APPLY_EMIT)
        assert time.monotonic() - started < 60
    assert outcome.ok, outcome.envelope
    assert outcome.warning_codes.count("W112_OPENLINEAGE_EMIT_FAILED") == 2
    again = run_cli("apply", "-p", project.path)  # no lock held, no marker left
    assert again.ok, again.envelope


@pytest.mark.kafka
@pytest.mark.schema_registry
def test_apply_exits_before_the_durable_operation_emit_nothing(kafka_project, ol_env, tmp_path: Path) -> None:
    log = tmp_path / "apply.jsonl"
    ol_env(transport_file(tmp_path, {"type": "file", "log_file_path": str(log)}))
    project = kafka_project()
    assert run_cli("apply", "-p", project.path, "--dry-run", *APPLY_EMIT).ok
    assert run_cli("apply", "-p", project.path).ok  # the flag is strictly opt-in
    assert run_cli("apply", "-p", project.path, "--confirm-env", "nope", *APPLY_EMIT).error_codes
    bad = run_cli("apply", "-p", project.path, "--emit-openlineage")  # no job namespace
    assert bad.error_codes == ["E506_OPENLINEAGE_INVALID"]
    assert read_jsonl(log) == []


@pytest.mark.kafka
@pytest.mark.schema_registry
def test_sigterm_during_apply_after_start_emits_abort_and_keeps_the_marker(kafka_project, tmp_path: Path) -> None:
    log = tmp_path / "apply.jsonl"
    config = transport_file(tmp_path, {"type": "file", "log_file_path": str(log)})
    project = kafka_project()
    # Every durable boundary sleeps, so the signal lands between two mutations after START.
    env = {**os.environ, "OPENLINEAGE_CONFIG": str(config), "STREAMT_TEST_BOUNDARY_DELAY": "1"}
    process = subprocess.Popen(
        [*STREAMT, "-o", "json", "apply", "-p", str(project.path), *APPLY_EMIT],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not read_jsonl(log) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=60)
    assert process.returncode == -signal.SIGTERM
    start, abort = valid(read_jsonl(log))
    assert (start["eventType"], abort["eventType"]) == ("START", "ABORT")
    marker = json.loads((project.state_dir() / "default.control.json").read_text())
    assert start["run"]["runId"] == abort["run"]["runId"] == marker["operation_id"]
    assert start["eventTime"] == marker["started_at"]
