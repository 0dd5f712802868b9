"""``STREAMT_LOG_LEVEL=debug``: each provider request and executor step as a structured log line on stderr.

Against the real broker and registry: the registry client's requests carry method, path template,
status and duration, never the URL, credentials or a body; ``--log-format json`` makes every line a JSON
object; stdout stays the one envelope.
"""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]


def test_debug_logs_each_registry_request_and_executor_step_without_secrets(
    kafka_project, registry_sentinel, streamt_process
) -> None:
    project = kafka_project()
    subject = project.topic("orders") + "-value"
    done = streamt_process("--log-format", "json", "apply", "-p", project.path, env={"STREAMT_LOG_LEVEL": "debug"})
    applied = json.loads(done.stdout)  # one envelope: logs only ever reach stderr
    assert applied["status"] == "ok", applied
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line["event"] == "provider_request"]
    assert requests, lines
    for request in requests:
        assert set(request) == {"event", "level", "timestamp", "provider", "method", "path", "status", "duration_ms"}
        assert request["provider"] == "schema_registry" and request["level"] == "debug"
        assert isinstance(request["status"], int) and request["duration_ms"] >= 0
        assert subject not in request["path"] and "{}" in request["path"]
    assert {"GET", "POST"} <= {r["method"] for r in requests}
    steps = [(line["step"], line["identity"]) for line in lines if line["event"] == "executor_step"]
    assert ("started", subject) in steps and ("done", subject) in steps
    everything = json.dumps(lines)
    assert registry_sentinel not in everything and project.registry not in everything
