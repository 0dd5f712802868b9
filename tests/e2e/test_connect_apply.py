"""plan/apply/status of sink connectors against the devstack's real Kafka Connect worker.

Every project gets a fresh topic prefix and connector name, so tests never see each other's
resources. The Connect password and the value of the ``${VAR}`` placeholder are sentinels that
must never appear in output, plan files, generated artifacts or ownership state.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

requests = pytest.importorskip("requests")
# --import-mode=importlib does not put this folder on sys.path; the shared reader is a sibling.
sys.path.insert(0, str(Path(__file__).parent))
from connect_reads import stored_config  # noqa: E402

pytestmark = [pytest.mark.connect, pytest.mark.kafka]

CONNECT_PASSWORD = "connect-pw-sentinel-41c9"
VAR_NAME = "E2E_CONNECT_SECRET"
VAR_VALUE = "var-sentinel-93be"
FILE_SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
STRING = "org.apache.kafka.connect.storage.StringConverter"


@attrs.define
class ConnectProject:
    path: Path
    prefix: str
    connector: str
    connect_url: str
    bootstrap: str
    files: dict[str, Any]

    def write(self) -> None:
        from streamt_testing import write_project

        write_project(self.path, self.files)

    @property
    def sink(self) -> dict[str, Any]:
        return self.files["stream_project.yml"]["models"][0]["sink"]

    def live_config(self, rebalance_wait: float = 30) -> dict[str, str] | None:
        return stored_config(self.connect_url, self.connector, rebalance_wait)

    def everything_written(self) -> str:
        """Every file the runs wrote under the project (state, control, generated), not the project file."""
        written = [p for p in sorted(self.path.rglob("*")) if p.is_file() and p.name != "stream_project.yml"]
        assert any(".streamt" in p.parts for p in written)
        return "\n".join(p.read_text(errors="replace") for p in written)

    def cleanup(self) -> None:
        from kafka import KafkaAdminClient

        requests.delete(f"{self.connect_url}/connectors/{self.connector}", timeout=30)
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            names = [t for t in admin.list_topics() if t.startswith(self.prefix + ".")]
            if names:
                admin.delete_topics(names, raise_errors=False)
        finally:
            admin.close()


@pytest.fixture
def connect_project(
    tmp_path: Path, kafka_bootstrap: str, connect_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., ConnectProject]]:
    monkeypatch.setenv(VAR_NAME, VAR_VALUE)
    made: list[ConnectProject] = []

    def make(connector_class: str = FILE_SINK, rest_url: str | None = None) -> ConnectProject:
        suffix = uuid.uuid4().hex[:10]
        prefix, name = f"e2e-{suffix}", f"sink_{suffix}"
        files = {
            "stream_project.yml": {
                "apiVersion": "streamt.dev/v1alpha1",
                "project": {"name": "e2e"},
                "runtime": {
                    "kafka": {"bootstrap_servers": kafka_bootstrap},
                    "connect": {
                        "default": "main",
                        "clusters": {
                            "main": {
                                "rest_url": rest_url or connect_url,
                                "username": "streamt",
                                "password": CONNECT_PASSWORD,
                            }
                        },
                    },
                },
                "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
                "defaults": {"topic": {"partitions": 1, "replication_factor": 1}},
                "sources": [{"name": "events", "topic": f"{prefix}.events", "ownership": {"mode": "managed"}}],
                "models": [
                    {
                        "name": name,
                        "from": [{"source": "events"}],
                        "sink": {
                            "connector": connector_class,
                            "config": {
                                "file": str(tmp_path / f"{name}.out"),
                                "tasks.max": 1,
                                "key.converter": STRING,
                                "value.converter": STRING,
                                "connection.password": "${" + VAR_NAME + "}",
                            },
                        },
                    }
                ],
            }
        }
        # The connector's name is scoped by project and environment (streamt_connect.naming).
        connector = f"e2e.default.{name}"
        project = ConnectProject(tmp_path / name, prefix, connector, connect_url, kafka_bootstrap, files)
        project.write()
        made.append(project)
        return project

    yield make
    for project in made:
        project.cleanup()


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        assert CONNECT_PASSWORD not in text and VAR_VALUE not in text


def outputs(*outcomes: Any) -> list[str]:
    return [json.dumps(o.envelope) + o.stdout + o.stderr for o in outcomes]


def wait_status(streamt_cli: Any, project: ConnectProject, wanted: str, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        status = streamt_cli("status", "-p", project.path)
        rows = {e["name"]: e for e in status.data["connectors"]}
        row = rows[project.connector]
        if (row["status"] == wanted and row.get("tasks")) or time.monotonic() > deadline:
            return status
        time.sleep(1)


def test_create_unchanged_update_and_status(connect_project, streamt_cli, tmp_path) -> None:
    project = connect_project()
    plan_file = tmp_path / "connect.plan.json"
    plan = streamt_cli("plan", "-p", project.path, "--out", plan_file)
    assert plan.ok, plan.envelope
    planned = {a["identity"]: a["action"] for a in plan.data["actions"]}
    assert planned == {project.connector: "create", f"{project.prefix}.events": "create"}

    first = streamt_cli("apply", "-p", project.path, "--plan", plan_file)
    assert first.ok, first.envelope
    assert first.action_results[project.connector] == "created"
    live = project.live_config()
    assert live is not None and live["connector.class"] == FILE_SINK
    assert live["topics"] == f"{project.prefix}.events"
    assert live["connection.password"] == VAR_VALUE  # resolved in memory, sent to the worker only

    status = wait_status(streamt_cli, project, "RUNNING")
    (row,) = status.data["connectors"]
    assert row["status"] == "RUNNING" and row["tasks"] == ["RUNNING"] and status.data["healthy"]

    again = streamt_cli("apply", "-p", project.path)
    assert again.ok and set(again.action_results.values()) == {"unchanged"}, again.envelope
    assert again.data["operation_id"] is None

    project.sink["config"]["tasks.max"] = 2
    project.write()
    changed = streamt_cli("plan", "-p", project.path)
    (update,) = [a for a in changed.data["actions"] if a["action"] == "update"]
    assert update["identity"] == project.connector
    assert update["evidence"]["changes"] == {"config.tasks.max": {"from": "1", "to": "2"}}
    updated = streamt_cli("apply", "-p", project.path)
    assert updated.ok and updated.action_results[project.connector] == "updated", updated.envelope
    assert project.live_config()["tasks.max"] == "2"

    # A new secret value is drift too, shown without either value.
    secret_plan = streamt_cli("plan", "-p", project.path, env={VAR_NAME: "rotated-value"})
    (rotated,) = [a for a in secret_plan.data["actions"] if a["action"] == "update"]
    assert rotated["evidence"]["changes"] == {"config.connection.password": {"live": "differs", "secret": True}}
    assert "rotated-value" not in json.dumps(secret_plan.envelope)
    assert streamt_cli("apply", "-p", project.path).ok
    assert project.live_config()["connection.password"] == "rotated-value"

    assert_no_secret(*outputs(plan, first, status, again, changed, updated, secret_plan))
    assert_no_secret(project.everything_written(), plan_file.read_text())


def test_a_live_connector_without_ownership_needs_a_decision(connect_project, streamt_cli) -> None:
    project = connect_project()
    # Made by another streamt checkout (its owner marker says which project and environment).
    config = {"connector.class": FILE_SINK, "topics": f"{project.prefix}.events", "file": "/dev/null"}
    config["streamt.owner"] = "billing/prod"
    response = requests.put(f"{project.connect_url}/connectors/{project.connector}/config", json=config, timeout=60)
    assert response.status_code in (200, 201)
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and plan.data["is_apply_blocked"]
    assert [r["identity"] for r in plan.data["ownership_requirements"]] == [project.connector]
    refused = streamt_cli("apply", "-p", project.path)
    assert refused.error_codes == ["E410_OWNERSHIP_REQUIRED"]
    (error,) = refused.envelope["errors"]
    made_by = "created by streamt project 'billing', environment 'prod'"
    assert f"connector {project.connector} ({made_by})" in error["message"]
    assert "remove the resource from that project first" in error["suggestion"]
    assert project.live_config()["file"] == "/dev/null"  # untouched
    assert_no_secret(*outputs(plan, refused))


def test_a_refused_create_keeps_the_recovery_marker(connect_project, streamt_cli, tmp_path) -> None:
    project = connect_project(connector_class="org.example.NoSuchConnector")
    failed = streamt_cli("apply", "-p", project.path)
    assert failed.error_codes == ["E407_DEPLOY_ERROR"], failed.envelope
    (failure,) = failed.data["failures"]
    assert failure == {"identity": project.connector, "kind": "connector", "outcome": "failed", "error": "HTTP400"}
    assert failed.data["rolled_back"] == [f"{project.prefix}.events"]
    assert project.live_config() is None
    blocked = streamt_cli("apply", "-p", project.path)
    assert blocked.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]
    assert blocked.data["operation_id"] == failed.data["operation_id"]
    assert "PluginDesc" not in json.dumps(failed.envelope)  # the worker's error body is never shown

    # Reviewed recovery re-observes the connector through the same observer: absent, so rolled back.
    path = tmp_path / "recovery.json"
    reviewed = streamt_cli("state", "recovery-plan", "-p", project.path, "--resolution", "rolled_back", "--out", path)
    assert reviewed.ok, reviewed.envelope
    recovered = streamt_cli(
        "state", "recover", "-p", project.path, "--plan", path,
        "--confirm-operation-id", reviewed.data["blocked_operation_id"],
        "--confirm-resolution", "rolled_back",
        "--confirm-evidence-checksum", reviewed.data["evidence_checksum"],
    )  # fmt: skip
    assert recovered.ok, recovered.envelope
    project.sink["connector"] = FILE_SINK
    project.write()
    fixed = streamt_cli("apply", "-p", project.path)
    assert fixed.ok and fixed.action_results[project.connector] == "created", fixed.envelope
    assert_no_secret(*outputs(failed, blocked, reviewed, recovered, fixed), path.read_text())
    assert_no_secret(project.everything_written())


def test_a_missing_placeholder_variable_fails_the_plan(connect_project, streamt_cli) -> None:
    project = connect_project()
    plan = streamt_cli("apply", "-p", project.path, env={VAR_NAME: None})
    assert plan.error_codes == ["E502_ENV_VAR_ERROR"]
    assert project.live_config() is None
    assert not (project.path / ".streamt" / "state" / "default.control.json").exists()


def test_an_unreachable_worker_is_a_connection_error(connect_project, streamt_cli) -> None:
    project = connect_project(rest_url="http://127.0.0.1:9")
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.error_codes == ["E406_CONNECTION_REFUSED"]
    status = streamt_cli("status", "-p", project.path)
    (row,) = status.data["connectors"]
    assert row["status"] == "UNAVAILABLE" and row["error"] == "E406_CONNECTION_REFUSED"
    assert_no_secret(*outputs(plan, status))


def test_a_placeholder_in_sink_config_is_read_from_the_project_env_file(
    connect_project, streamt_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28, finding 9 / dsl.md §2.3: `.env` feeds every `${VAR}`, sink.config included."""
    monkeypatch.delenv(VAR_NAME)
    project = connect_project()
    (project.path / ".env").write_text(f"{VAR_NAME}={VAR_VALUE}\n")
    applied = streamt_cli("apply", "-p", project.path)
    assert applied.ok, applied.envelope
    live = project.live_config()
    assert live is not None and live["connection.password"] == VAR_VALUE
    (project.path / ".env").unlink()  # the one file allowed to hold it
    assert_no_secret(
        *outputs(applied), project.everything_written()
    )  # without it the variable is missing, as before: E502 before any request
    missing = streamt_cli("plan", "-p", project.path)  # without it the variable is missing: E502 before any request
    assert missing.error_codes == ["E502_ENV_VAR_ERROR"], missing.envelope
