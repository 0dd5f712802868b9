"""Flink SQL jobs online against the devstack Flink cluster, SQL Gateway and Kafka.

One project: a managed source topic -> a Flink job (``UPPER(name)``) -> its sink topic. Every test
uses fresh topic and job names and cancels the jobs it created (the TaskManager has 4 slots).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = [pytest.mark.kafka, pytest.mark.flink]


def _files(suffix: str, bootstrap: str, rest: str, gateway: str, sql: str, kafka: dict | None = None) -> dict:
    return {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "e2eflink"},
            "runtime": {
                "kafka": kafka or {"bootstrap_servers": bootstrap},
                "flink": {"default": "local", "clusters": {"local": {"rest_url": rest, "sql_gateway_url": gateway}}},
            },
            "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
            "defaults": {"topic": {"partitions": 1, "replication_factor": 1}},
            "sources": [
                {
                    "name": "raw",
                    "topic": f"e2e-{suffix}.raw",
                    "ownership": {"mode": "managed"},
                    "columns": [{"name": "id", "type": "STRING"}, {"name": "name", "type": "STRING"}],
                }
            ],
            "models": [
                {
                    "name": f"up_{suffix}",
                    "materialized": "flink",
                    "sql": sql,
                    "advanced": {"topic": {"name": f"e2e-{suffix}.upper"}},
                }
            ],
        }
    }


SQL = 'SELECT id, UPPER(name) AS name_upper FROM {{ source("raw") }}'


class FlinkProject:
    def __init__(self, root: Path, bootstrap: str, rest: str, gateway: str) -> None:
        self.suffix = uuid.uuid4().hex[:8]
        self.path, self.bootstrap, self.rest, self.gateway = root / self.suffix, bootstrap, rest, gateway
        self.job = f"up_{self.suffix}"
        self.write()

    def write(self, sql: str = SQL, **overrides: Any) -> None:
        from streamt_testing import write_project

        rest, gateway = overrides.pop("rest", self.rest), overrides.pop("gateway", self.gateway)
        write_project(self.path, _files(self.suffix, self.bootstrap, rest, gateway, sql, **overrides))

    def topic(self, short: str) -> str:
        return f"e2e-{self.suffix}.{short}"

    def jobs(self) -> list[dict[str, Any]]:
        listed = requests.get(f"{self.rest}/jobs/overview", timeout=10).json()["jobs"]
        return [j for j in listed if j["name"] == f"e2eflink/default/{self.job}"]  # project-scoped pipeline.name

    def live(self) -> list[dict[str, Any]]:
        return [j for j in self.jobs() if j["state"] not in ("FAILED", "CANCELED", "FINISHED")]

    def wait_running(self, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            running = [j for j in self.live() if j["state"] == "RUNNING"]
            if running:
                return str(running[0]["jid"])
            time.sleep(0.5)
        raise AssertionError(f"job {self.job} never RUNNING: {self.jobs()}")

    def cleanup(self) -> None:
        for job in self.live():
            requests.patch(f"{self.rest}/jobs/{job['jid']}?mode=cancel", timeout=10)
        from kafka import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap)
        try:
            names = [t for t in admin.list_topics() if t.startswith(f"e2e-{self.suffix}.")]
            if names:
                admin.delete_topics(names, raise_errors=False)
        finally:
            admin.close()


@pytest.fixture
def flink_project(
    tmp_path: Path, kafka_bootstrap: str, flink_rest_url: str, flink_sql_gateway_url: str
) -> Iterator[Callable[[], FlinkProject]]:
    made: list[FlinkProject] = []

    def make() -> FlinkProject:
        made.append(FlinkProject(tmp_path, kafka_bootstrap, flink_rest_url, flink_sql_gateway_url))
        return made[-1]

    yield make
    for project in made:
        project.cleanup()


def _roundtrip(project: FlinkProject) -> dict[str, Any]:
    """Produce two JSON records to the source topic; the transformed one from the sink topic (bounded)."""
    from kafka import KafkaConsumer, KafkaProducer

    producer = KafkaProducer(bootstrap_servers=project.bootstrap)
    for key, name in (("k1", "ada"), ("k2", "grace")):
        producer.send(project.topic("raw"), json.dumps({"id": key, "name": name}).encode())
    producer.flush()
    producer.close()
    consumer = KafkaConsumer(
        project.topic("upper"), bootstrap_servers=project.bootstrap, auto_offset_reset="earliest",
        consumer_timeout_ms=2000, group_id=None,
    )  # fmt: skip
    seen: dict[str, Any] = {}
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline and len(seen) < 2:
            for message in consumer:
                row = json.loads(message.value)
                seen[row["id"]] = row
    finally:
        consumer.close()
    return seen


def test_create_runs_then_noop_then_changed_sql_is_blocked(flink_project, streamt_cli, tmp_path) -> None:
    project = flink_project()
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok, plan.envelope
    (job_action,) = [a for a in plan.data["actions"] if a["kind"] == "flink_job"]
    assert job_action["action"] == "create" and job_action["evidence"]["observation"]["status"] == "absent"

    applied = streamt_cli("apply", "-p", project.path)
    assert applied.ok, applied.envelope
    assert applied.action_results[project.job] == "created"
    job_id = project.wait_running()
    assert [j["jid"] for j in project.live()] == [job_id]

    seen = _roundtrip(project)
    assert seen == {"k1": {"id": "k1", "name_upper": "ADA"}, "k2": {"id": "k2", "name_upper": "GRACE"}}

    status = streamt_cli("status", "-p", project.path)
    assert status.ok and status.data["healthy"] is True, status.envelope
    (entry,) = status.data["flink_jobs"]
    assert entry["status"] == "RUNNING" and entry["state"] == "RUNNING" and entry["exists"] is True

    again = streamt_cli("apply", "-p", project.path)
    assert again.ok and set(again.action_results.values()) == {"unchanged"}, again.envelope
    assert again.data["operation_id"] is None
    replan = streamt_cli("plan", "-p", project.path)
    assert replan.data["counts"]["create"] == 0 and replan.data["is_apply_blocked"] is False
    assert [a["action"] for a in replan.data["actions"] if a["kind"] == "flink_job"] == ["noop"]

    project.write(sql='SELECT id, LOWER(name) AS name_upper FROM {{ source("raw") }}')
    out = tmp_path / "blocked.plan.json"
    blocked = streamt_cli("plan", "-p", project.path, "--out", out)
    assert blocked.ok and blocked.data["is_apply_blocked"] is True, blocked.envelope
    assert [(b["reason"], b["identity"]) for b in blocked.data["safety_blockers"]] == [
        ("flink_job_update", project.job)
    ]
    assert json.loads(out.read_text())["is_apply_blocked"] is True
    for extra in ([], ["--force"], ["--plan", str(out), "--force"]):
        refused = streamt_cli("apply", "-p", project.path, *extra)
        assert refused.error_codes == ["E417_SAFETY_BLOCKED"], (extra, refused.envelope)
        hint = refused.envelope["errors"][0]["suggestion"]
        assert f"{project.job}: set flink.upgrade_mode: savepoint" in hint and "new topic" not in hint
    # Never cancel-and-resubmit: the same job keeps running.
    assert [j["jid"] for j in project.live()] == [job_id]
    assert not (project.path / ".streamt" / "state" / "default.control.json").exists()


def test_a_live_job_without_ownership_is_e410(flink_project, streamt_cli) -> None:
    project = flink_project()
    assert streamt_cli("apply", "-p", project.path).ok
    project.wait_running()
    # The same declarations without the ownership record (another checkout, lost state).
    (project.path / ".streamt" / "state" / "default.json").unlink()
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and plan.data["is_apply_blocked"] is True
    assert project.job in [r["identity"] for r in plan.data["ownership_requirements"]]
    refused = streamt_cli("apply", "-p", project.path, "--force")
    assert refused.error_codes == ["E410_OWNERSHIP_REQUIRED"], refused.envelope
    assert len(project.live()) == 1


def test_unreachable_flink_fails_the_plan_closed(flink_project, streamt_cli) -> None:
    project = flink_project()
    project.write(rest="http://127.0.0.1:9")
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.error_codes == ["E406_CONNECTION_REFUSED"], plan.envelope
    status = streamt_cli("status", "-p", project.path)
    assert status.data["flink_jobs"][0]["status"] == "UNAVAILABLE"


def test_missing_sql_gateway_is_e206_before_any_change(flink_project, streamt_cli) -> None:
    project = flink_project()
    project.write(gateway=None)
    for command in ("plan", "apply"):
        refused = streamt_cli(command, "-p", project.path)
        assert refused.error_codes == ["E206_SQL_GATEWAY_NOT_CONFIGURED"], refused.envelope
    assert not (project.path / ".streamt" / "state" / "default.json").exists()


def test_sql_gateway_unreachable_mid_apply_keeps_the_marker(flink_project, streamt_cli) -> None:
    project = flink_project()
    project.write(gateway="http://127.0.0.1:9")  # topics are created first, then the job submission fails
    failed = streamt_cli("apply", "-p", project.path)
    assert failed.error_codes == ["E407_DEPLOY_ERROR"], failed.envelope
    (failure,) = failed.data["failures"]
    assert failure["identity"] == project.job and failure["error"] == "E406_CONNECTION_REFUSED"
    assert project.live() == []
    control = json.loads((project.path / ".streamt" / "state" / "default.control.json").read_text())
    assert control["status"] == "recovery_required"
    project.write()
    again = streamt_cli("apply", "-p", project.path)
    assert again.error_codes == ["E419_STATE_RECOVERY_REQUIRED"], again.envelope
    assert project.live() == []


def test_the_sasl_password_is_resolved_at_submission_and_never_written(
    flink_project, streamt_cli, kafka_sasl_bootstrap, kafka_sasl_credentials, tmp_path
) -> None:
    project = flink_project()
    secret = kafka_sasl_credentials["admin"]
    kafka = {
        "bootstrap_servers": kafka_sasl_bootstrap,
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": "PLAIN",
        "sasl_username": "admin",
        "sasl_password": "${E2E_FLINK_SASL_PW}",
    }
    project.write(kafka=kafka)
    env = {"E2E_FLINK_SASL_PW": secret}
    out = tmp_path / "sasl.plan.json"
    plan = streamt_cli("plan", "-p", project.path, "--out", out, env=env)
    assert plan.ok, plan.envelope
    applied = streamt_cli("apply", "-p", project.path, "--plan", out, env=env)
    assert applied.ok and applied.action_results[project.job] == "created", applied.data
    project.wait_running()  # the job authenticated with the password resolved in memory
    assert _roundtrip(project)["k1"] == {"id": "k1", "name_upper": "ADA"}
    status = streamt_cli("status", "-p", project.path, env=env)
    compiled = streamt_cli("compile", "-p", project.path, "--output-dir", tmp_path / "gen", env=env)
    assert compiled.ok
    assert "${E2E_FLINK_SASL_PW}" in (tmp_path / "gen" / "flink" / f"{project.job}.sql").read_text()
    written = [p.read_text() for p in [*project.path.rglob("*"), *tmp_path.rglob("*.json")] if p.is_file()]
    written += [p.read_text() for p in (tmp_path / "gen").rglob("*") if p.is_file()]
    for text in [*(o.stdout + o.stderr for o in (plan, applied, status, compiled)), *written]:
        assert secret not in text


def test_a_failed_later_job_cancels_the_job_this_run_created(flink_project, streamt_cli) -> None:
    from streamt_testing import write_project

    project = flink_project()
    files = _files(project.suffix, project.bootstrap, project.rest, project.gateway, SQL)
    bad = {
        "name": f"zz_{project.suffix}",
        "materialized": "flink",
        "sql": 'SELECT id, NO_SUCH_FUNCTION(name) AS broken FROM {{ source("raw") }}',
        "advanced": {"topic": {"name": f"e2e-{project.suffix}.broken"}},
    }
    files["stream_project.yml"]["models"].append(bad)
    write_project(project.path, files)
    failed = streamt_cli("apply", "-p", project.path)
    assert failed.error_codes == ["E407_DEPLOY_ERROR"], failed.envelope
    (failure,) = failed.data["failures"]
    assert failure == {
        "identity": bad["name"],
        "kind": "flink_job",
        "outcome": "failed",
        "error": "E403_FLINK_SQL_ERROR",
    }
    assert project.job in failed.data["rolled_back"]
    assert project.live() == [] and [j["state"] for j in project.jobs()] == ["CANCELED"]


def test_an_env_value_in_the_query_comes_from_dotenv_at_submission_and_is_never_written(
    flink_project, streamt_cli, tmp_path
) -> None:
    """Issue 28, finding 9: `{{ env() }}` in SQL is the `${NAME}` placeholder in every output; the deployer
    resolves it from `.env` (dsl.md 2.3) in memory, so the job filters with the real value."""
    from kafka import KafkaConsumer, KafkaProducer

    project = flink_project()
    project.write(sql=SQL + " WHERE name <> '{{ env(\"E2E_HIDDEN_NAME\") }}'")
    (project.path / ".env").write_text("E2E_HIDDEN_NAME=grace\n")  # not in the process environment
    out = tmp_path / "env.plan.json"
    plan = streamt_cli("plan", "-p", project.path, "--out", out)
    assert plan.ok, plan.envelope
    applied = streamt_cli("apply", "-p", project.path, "--plan", out)
    assert applied.ok and applied.action_results[project.job] == "created", applied.data
    project.wait_running()
    producer = KafkaProducer(bootstrap_servers=project.bootstrap)
    for key, name in (("k1", "ada"), ("k2", "grace")):
        producer.send(project.topic("raw"), json.dumps({"id": key, "name": name}).encode())
    producer.flush()
    producer.close()
    consumer = KafkaConsumer(
        project.topic("upper"), bootstrap_servers=project.bootstrap, auto_offset_reset="earliest",
        consumer_timeout_ms=2000, group_id=None,
    )  # fmt: skip
    seen: dict[str, Any] = {}
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline and "k1" not in seen:
            seen.update((row["id"], row) for row in (json.loads(m.value) for m in consumer))
        seen.update((row["id"], row) for row in (json.loads(m.value) for m in consumer))  # k2 would be here
    finally:
        consumer.close()
    assert seen == {"k1": {"id": "k1", "name_upper": "ADA"}}  # the query held 'grace', not its placeholder
    compiled = streamt_cli("compile", "-p", project.path, "--output-dir", tmp_path / "gen")
    assert compiled.ok
    assert "<> '${E2E_HIDDEN_NAME}'" in (tmp_path / "gen" / "flink" / f"{project.job}.sql").read_text()
    written = [p.read_text() for p in [*project.path.rglob("*"), out, *(tmp_path / "gen").rglob("*")] if p.is_file()]
    for text in [*(o.stdout + o.stderr for o in (plan, applied, compiled)), *written]:
        assert "grace" not in text or text == "E2E_HIDDEN_NAME=grace\n"
