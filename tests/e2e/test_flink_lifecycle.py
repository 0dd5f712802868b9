"""Flink day two against the devstack Flink cluster, SQL Gateway and Kafka.

A stateful job (a running COUNT per key) is upgraded through a savepoint and keeps counting;
faults at each boundary of the upgrade (savepoint timeout, refused resubmit, SIGKILL between the
savepoint and the resubmit) leave a truthful marker that reviewed recovery resolves; the
newcomer's FAILED job (its input topic did not exist) is recovered with documented commands; a
job cancelled by apply's rollback is recovered as ``rolled_back``; two projects deploy the same
model name side by side. Every test uses fresh names and cancels every job it started.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import requests

pytestmark = [pytest.mark.kafka, pytest.mark.flink]

COUNT = "SELECT id, COUNT(*) AS n FROM {{ source(\"raw\") }} WHERE name <> '{word}' GROUP BY id"
LIVE = ("RUNNING", "CREATED", "INITIALIZING", "RESTARTING", "RECONCILING", "FAILING", "CANCELLING")


class CountProject:
    """One project: source topic -> COUNT per key (upsert) -> output topic."""

    def __init__(self, root: Path, endpoints: dict[str, str], project: str | None = None, model: str | None = None):
        self.suffix = uuid.uuid4().hex[:8]
        self.name = project or f"life{self.suffix}"
        self.model = model or f"counts_{self.suffix}"
        self.path = root / f"{self.name}-{self.suffix}"
        self.endpoints = endpoints
        self.raw, self.out = f"e2e-{self.suffix}.raw", f"e2e-{self.suffix}.counts"

    @property
    def pipeline(self) -> str:
        return f"{self.name}/default/{self.model}"

    def write(
        self,
        word: str = "x",
        mode: str | None = None,
        source_managed: bool = True,
        sql: str | None = None,
        extra_models: tuple[dict[str, Any], ...] = (),
        flink_extra: dict[str, Any] | None = None,
        source_extra: dict[str, Any] | None = None,
    ) -> None:
        from streamt_testing import write_project

        flink: dict[str, Any] = {"parallelism": 1, "state_ttl_ms": 3600000, **(flink_extra or {})}
        if mode:
            flink["upgrade_mode"] = mode
        source: dict[str, Any] = {
            "name": "raw",
            "topic": self.raw,
            "columns": [{"name": "id", "type": "STRING"}, {"name": "name", "type": "STRING"}],
        }
        if source_managed:
            source["ownership"] = {"mode": "managed"}
        source.update(source_extra or {})
        e = self.endpoints
        write_project(
            self.path,
            {
                "stream_project.yml": {
                    "apiVersion": "streamt.dev/v1alpha1",
                    "project": {"name": self.name},
                    "runtime": {
                        "kafka": {"bootstrap_servers": e["kafka"]},
                        "flink": {
                            "default": "local",
                            "clusters": {"local": {"rest_url": e["rest"], "sql_gateway_url": e["gateway"]}},
                        },
                    },
                    "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
                    "defaults": {"topic": {"partitions": 1, "replication_factor": 1}},
                    "sources": [source],
                    "models": [
                        {
                            "name": self.model,
                            "materialized": "flink",
                            "sql": sql or COUNT.replace("{word}", word),
                            "advanced": {"topic": {"name": self.out}, "flink": flink},
                        },
                        *extra_models,
                    ],
                }
            },
        )

    def jobs(self) -> list[dict[str, Any]]:
        listed = requests.get(f"{self.endpoints['rest']}/jobs/overview", timeout=10).json()["jobs"]
        return [j for j in listed if j["name"] == self.pipeline]

    def live(self) -> list[dict[str, Any]]:
        return [j for j in self.jobs() if j["state"] in LIVE]

    def legacy_live(self) -> list[dict[str, Any]]:
        """Live jobs under the model name alone (what a test of the legacy form starts)."""
        listed = requests.get(f"{self.endpoints['rest']}/jobs/overview", timeout=10).json()["jobs"]
        return [j for j in listed if j["name"] == self.model and j["state"] in LIVE]

    def wait_state(self, wanted: str, timeout: float = 90, job_id: str | None = None) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [j for j in self.jobs() if j["state"] == wanted and job_id in (None, j["jid"])]
            # RUNNING means the one live job: an old one still stopping would make two.
            if found and (wanted != "RUNNING" or len(self.live()) == 1):
                return str(found[0]["jid"])
            time.sleep(0.5)
        raise AssertionError(f"{self.pipeline} never {wanted}: {self.jobs()}")

    def wait_slot(self, timeout: float = 120) -> None:
        """Wait for a free task slot: the cluster's 4 are shared with every other test run."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if requests.get(f"{self.endpoints['rest']}/overview", timeout=10).json()["slots-available"] > 0:
                return
            time.sleep(1)

    def produce(self, *keys: str) -> None:
        from kafka import KafkaProducer

        producer = KafkaProducer(bootstrap_servers=self.endpoints["kafka"])
        for key in keys:
            producer.send(self.raw, json.dumps({"id": key, "name": "n"}).encode())
        producer.flush()
        producer.close()

    def counts(self, key: str, until: int, timeout: float = 90) -> list[int]:
        """Every count the job wrote for ``key``, in order, once the newest reaches ``until``."""
        from kafka import KafkaConsumer

        deadline = time.monotonic() + timeout
        while True:
            consumer = KafkaConsumer(
                self.out, bootstrap_servers=self.endpoints["kafka"], auto_offset_reset="earliest",
                consumer_timeout_ms=1500, group_id=None,
            )  # fmt: skip
            try:
                seen = [json.loads(m.value)["n"] for m in consumer if m.value and json.loads(m.value)["id"] == key]
            finally:
                consumer.close()
            if (seen and seen[-1] >= until) or time.monotonic() > deadline:
                return seen
            time.sleep(1)

    def create_topic(self, name: str) -> None:
        from kafka import KafkaAdminClient
        from kafka.admin import NewTopic

        admin = KafkaAdminClient(bootstrap_servers=self.endpoints["kafka"])
        try:
            admin.create_topics([NewTopic(name, 1, 1)])
        finally:
            admin.close()

    def control(self) -> dict[str, Any]:
        return json.loads((self.path / ".streamt" / "state" / "default.control.json").read_text())

    def cleanup(self) -> None:
        for job in [*self.live(), *self.legacy_live()]:
            requests.patch(f"{self.endpoints['rest']}/jobs/{job['jid']}?mode=cancel", timeout=10)
        from kafka import KafkaAdminClient

        admin = KafkaAdminClient(bootstrap_servers=self.endpoints["kafka"])
        try:
            names = [t for t in admin.list_topics() if t.startswith(f"e2e-{self.suffix}.")]
            if names:
                admin.delete_topics(names, raise_errors=False)
        finally:
            admin.close()


@pytest.fixture
def count_project(
    tmp_path: Path, kafka_bootstrap: str, flink_rest_url: str, flink_sql_gateway_url: str
) -> Iterator[Callable[..., CountProject]]:
    made: list[CountProject] = []
    endpoints = {"kafka": kafka_bootstrap, "rest": flink_rest_url, "gateway": flink_sql_gateway_url}

    def make(**kwargs: Any) -> CountProject:
        made.append(CountProject(tmp_path, endpoints, **kwargs))
        return made[-1]

    yield make
    for project in made:
        project.cleanup()


def _deployed(streamt_cli, project: CountProject) -> str:
    """Apply the project, count k1 to 3 and return the running job id."""
    project.wait_slot()
    applied = streamt_cli("apply", "-p", project.path)
    assert applied.ok, applied.envelope
    job_id = project.wait_state("RUNNING")
    project.produce("k1", "k1", "k1")
    assert project.counts("k1", until=3)[-1] == 3
    return job_id


def _recover(streamt_cli, project: CountProject, resolution: str, path: Path) -> dict[str, Any]:
    made = streamt_cli("state", "recovery-plan", "-p", project.path, "--resolution", resolution, "--out", path)
    assert made.ok, made.envelope
    document = json.loads(path.read_text())
    done = streamt_cli(
        "state", "recover", "-p", project.path, "--plan", path,
        "--confirm-operation-id", made.data["blocked_operation_id"],
        "--confirm-resolution", resolution,
        "--confirm-evidence-checksum", made.data["evidence_checksum"],
    )  # fmt: skip
    assert done.ok and done.data["control_status"] == "clear", done.envelope
    return document


def _reviewed_apply(streamt_cli, project: CountProject, path: Path, *extra: str):
    planned = streamt_cli("plan", "-p", project.path, "--out", path)
    assert planned.ok and not planned.data["is_apply_blocked"], planned.envelope
    return planned, streamt_cli("apply", "-p", project.path, "--plan", path, *extra)


def _flink_action(outcome) -> dict[str, Any]:
    (action,) = [a for a in outcome.data["actions"] if a["kind"] == "flink_job"]
    return action


def test_a_savepoint_upgrade_keeps_counting_and_a_second_apply_is_a_noop(count_project, streamt_cli, tmp_path):
    project = count_project()
    project.write(mode="savepoint")
    old_job = _deployed(streamt_cli, project)

    project.write(word="y", mode="savepoint")  # state-compatible: the same keys, aggregate and tables
    direct = streamt_cli("apply", "-p", project.path)
    assert direct.error_codes == ["E418_REVIEWED_PLAN_REQUIRED"], direct.envelope
    planned = streamt_cli("plan", "-p", project.path, "--out", tmp_path / "up.json")
    assert planned.ok and not planned.data["is_apply_blocked"], planned.envelope
    action = _flink_action(planned)
    assert action["action"] == "update" and action["evidence"]["upgrade"]["mode"] == "savepoint"
    assert action["evidence"]["upgrade"]["job_id"] == old_job
    applied = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "up.json")
    assert applied.ok and applied.action_results[project.model] == "updated", applied.envelope
    new_job = project.wait_state("RUNNING")
    assert new_job != old_job and [j["jid"] for j in project.live()] == [new_job]

    project.produce("k1", "k1")
    counts = project.counts("k1", until=5)
    assert counts[-1] == 5 and counts[:3] == [1, 2, 3]
    assert all(n > 3 for n in counts[3:]), counts  # continued from the savepoint, not recounted from 1

    state = json.loads((project.path / ".streamt" / "state" / "default.json").read_text())
    (record,) = [r for r in state["resources"] if r["kind"] == "flink_job"]
    assert record["attributes"]["job_id"] == new_job and "savepoint" in record["attributes"]["savepoint"]
    again = streamt_cli("apply", "-p", project.path)
    assert again.ok and set(again.action_results.values()) == {"unchanged"}, again.envelope
    assert again.data["operation_id"] is None


def test_savepoint_plan_text_and_blockers(count_project, streamt_cli, tmp_path):
    from streamt.cli import run

    project = count_project()
    project.write(mode="savepoint")
    _deployed(streamt_cli, project)
    project.write(word="y", mode="savepoint")
    out = tmp_path / "text.out"
    with out.open("w") as stdout, (tmp_path / "text.err").open("w") as stderr:
        assert run(["plan", "-p", str(project.path)], stdout, stderr) == 0
    assert f"  ~ {project.model} (savepoint upgrade)" in out.read_text()

    regroup = 'SELECT name AS id, COUNT(*) AS n FROM {{ source("raw") }} GROUP BY name'
    project.write(mode="savepoint", sql=regroup)
    blocked = streamt_cli("plan", "-p", project.path)
    assert [b["reason"] for b in blocked.data["safety_blockers"]] == ["flink_state_incompatible"]
    assert "GROUP BY keys changed" in blocked.data["safety_blockers"][0]["message"]

    project.write(word="y", mode="stateless")
    planned = streamt_cli("plan", "-p", project.path, "--out", tmp_path / "sl.json")
    assert "drops its state" in _flink_action(planned)["summary"]
    refused = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "sl.json")
    assert refused.error_codes == ["E900_USAGE_ERROR"] and "--force" in refused.envelope["errors"][0]["message"]
    forced = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "sl.json", "--force")
    assert forced.ok and forced.action_results[project.model] == "updated", forced.envelope
    project.wait_state("RUNNING")
    deadline = time.monotonic() + 90
    while len(counts := project.counts("k1", until=3)) < 6 and time.monotonic() < deadline:
        time.sleep(1)
    assert counts == [1, 2, 3, 1, 2, 3]  # stateless: the new SQL recounted the retained input from scratch


def test_a_savepoint_timeout_keeps_the_savepoint_and_recovers(count_project, streamt_cli, tmp_path):
    project = count_project()
    project.write(mode="savepoint")
    old_job = _deployed(streamt_cli, project)
    project.write(word="y", mode="savepoint")
    streamt_cli("plan", "-p", project.path, "--out", tmp_path / "up.json")
    failed = streamt_cli(
        "apply", "-p", project.path, "--plan", tmp_path / "up.json", env={"STREAMT_TEST_FLINK_SAVEPOINT_SECONDS": "0"}
    )
    assert failed.error_codes == ["E407_DEPLOY_ERROR"], failed.envelope
    assert (
        failed.data["failures"][0]["outcome"] == "unknown" and failed.data["failures"][0]["error"] == "SavepointTimeout"
    )
    control = project.control()
    assert control["status"] == "recovery_required"
    assert any((p.get("evidence") or {}).get("savepoint_trigger") for p in control["progress"])
    project.wait_state("FINISHED", job_id=old_job)  # the stop completed after the deadline
    document = _recover(streamt_cli, project, "observed", tmp_path / "obs.json")
    assert [t["classification"] for t in document["targets"]] == ["prior"]

    planned, applied = _reviewed_apply(streamt_cli, project, tmp_path / "again.json")
    assert "savepoint" in (_flink_action(planned)["evidence"]["upgrade"]["restore_from"] or "")
    assert applied.ok, applied.envelope
    project.wait_state("RUNNING")
    project.produce("k1")
    assert project.counts("k1", until=4)[-1] == 4


def test_a_refused_resubmit_rolls_back_to_the_old_sql_from_the_same_savepoint(count_project, streamt_cli, tmp_path):
    project = count_project()
    project.write(mode="savepoint")
    _deployed(streamt_cli, project)
    broken = 'SELECT id, COUNT(*) AS n FROM {{ source("raw") }} WHERE NO_SUCH_FUNCTION(name) GROUP BY id'
    project.write(mode="savepoint", sql=broken)
    _, failed = _reviewed_apply(streamt_cli, project, tmp_path / "broken.json")
    assert failed.error_codes == ["E407_DEPLOY_ERROR"], failed.envelope
    assert failed.data["failures"][0] == {
        "identity": project.model,
        "kind": "flink_job",
        "outcome": "failed",
        "error": "E403_FLINK_SQL_ERROR",
    }
    facts: dict[str, Any] = {}
    for progress in project.control()["progress"]:
        facts.update(progress.get("evidence") or {})
    assert facts["savepoint"] == facts["rolling_back_from"] and facts["rolled_back_to"]
    assert project.wait_state("RUNNING") == facts["rolled_back_to"]
    project.produce("k1")
    assert project.counts("k1", until=4)[-1] == 4  # the old SQL counts on from the savepoint

    # Recovery checks the project revision of the blocked operation (the broken SQL) against live.
    document = _recover(streamt_cli, project, "rolled_back", tmp_path / "rb.json")
    assert [t["classification"] for t in document["targets"]] == ["prior"]
    project.write(mode="savepoint")  # back to what runs: a no-op
    assert _flink_action(streamt_cli("plan", "-p", project.path))["action"] == "noop"


def test_sigkill_between_the_savepoint_and_the_resubmit_keeps_the_path_and_recovers(
    count_project, streamt_cli, streamt_process, tmp_path
):
    project = count_project()
    project.write(mode="savepoint")
    old_job = _deployed(streamt_cli, project)
    project.write(word="y", mode="savepoint")
    streamt_cli("plan", "-p", project.path, "--out", tmp_path / "up.json")
    # Boundaries: intent, started, journal(replacing), journal(trigger), journal(savepoint) -> killed there.
    killed = streamt_process(
        "apply", "-p", project.path, "--plan", tmp_path / "up.json", env={"STREAMT_TEST_KILL_AT_BOUNDARY": "5"}
    )
    assert killed.returncode == -9, killed.stderr
    control = project.control()
    assert control["status"] == "in_progress"
    path = control["progress"][-1]["evidence"]["savepoint"]
    assert "savepoint" in path
    project.wait_state("FINISHED", job_id=old_job)
    assert project.live() == []
    blocked = streamt_cli("apply", "-p", project.path)
    assert blocked.error_codes == ["E419_STATE_RECOVERY_REQUIRED"]

    refused = streamt_cli(
        "state", "recovery-plan", "-p", project.path, "--resolution", "rolled_back", "--out", tmp_path / "rb.json"
    )
    assert refused.error_codes == ["E408_PLAN_FILE_INVALID"]  # a stopped job is not the prior RUNNING one
    document = _recover(streamt_cli, project, "observed", tmp_path / "obs.json")
    assert [t["classification"] for t in document["targets"]] == ["prior"]
    assert path in json.dumps(document["preimage"]["progress"])

    planned, applied = _reviewed_apply(streamt_cli, project, tmp_path / "resume.json")
    assert _flink_action(planned)["evidence"]["upgrade"]["restore_from"] == path
    assert applied.ok, applied.envelope
    project.wait_state("RUNNING")
    project.produce("k1")
    counts = project.counts("k1", until=4)
    assert counts[-1] == 4 and counts.count(1) == 1  # restored, not recounted


def test_the_newcomers_failed_job_is_recoverable_with_documented_commands(count_project, streamt_cli, tmp_path):
    project = count_project()
    project.write(source_managed=False)  # an external input topic that does not exist yet
    applied = streamt_cli("apply", "-p", project.path)
    assert applied.ok, applied.envelope
    project.wait_state("FAILED")

    status = streamt_cli("status", "-p", project.path)
    (entry,) = status.data["flink_jobs"]
    assert entry["status"] == "FAILED" and entry["healthy"] is False, entry
    health = streamt_cli("status", "-p", project.path, "--health")
    assert health.exit_code != 0

    direct = streamt_cli("apply", "-p", project.path)
    assert direct.error_codes == ["E418_REVIEWED_PLAN_REQUIRED"], direct.envelope
    project.create_topic(project.raw)
    planned = streamt_cli("plan", "-p", project.path, "--out", tmp_path / "resubmit.json")
    action = _flink_action(planned)
    assert action["action"] == "update" and "from scratch" in action["summary"], action
    without = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "resubmit.json")
    assert without.error_codes == ["E900_USAGE_ERROR"]
    forced = streamt_cli("apply", "-p", project.path, "--plan", tmp_path / "resubmit.json", "--force")
    assert forced.ok and forced.action_results[project.model] == "updated", forced.envelope
    project.wait_state("RUNNING")
    project.produce("k1")
    assert project.counts("k1", until=1) == [1]
    assert _flink_action(streamt_cli("plan", "-p", project.path))["action"] == "noop"


def test_a_job_cancelled_by_the_rollback_recovers_as_rolled_back(count_project, streamt_cli, tmp_path):
    project = count_project()
    broken = {
        "name": f"zz_{project.suffix}",
        "materialized": "flink",
        "sql": 'SELECT id, NO_SUCH_FUNCTION(name) AS broken FROM {{ source("raw") }}',
        "advanced": {"topic": {"name": f"e2e-{project.suffix}.broken"}},
    }
    project.write(extra_models=(broken,))
    failed = streamt_cli("apply", "-p", project.path)
    assert failed.error_codes == ["E407_DEPLOY_ERROR"] and project.model in failed.data["rolled_back"]
    assert [j["state"] for j in project.jobs()] == ["CANCELED"]

    document = _recover(streamt_cli, project, "rolled_back", tmp_path / "rb.json")
    classified = {t["identity"]: t["classification"] for t in document["targets"]}
    assert classified[project.model] == "prior", document["targets"]
    project.write()
    replan = streamt_cli("plan", "-p", project.path)
    assert replan.ok and not replan.data["ownership_requirements"], replan.envelope
    assert _flink_action(replan)["action"] == "create"  # the cancelled leftover is no ownership question
    assert streamt_cli("apply", "-p", project.path).ok
    project.wait_state("RUNNING")


def test_two_projects_deploy_the_same_model_name_side_by_side(count_project, streamt_cli):
    model = f"orders_clean_{uuid.uuid4().hex[:6]}"
    first, second = count_project(model=model), count_project(model=model)
    first.write(source_managed=False)  # FAILS: its input does not exist
    assert streamt_cli("apply", "-p", first.path).ok
    first.wait_state("FAILED")
    second.write()
    plan = streamt_cli("plan", "-p", second.path)
    assert plan.ok and not plan.data["ownership_requirements"], plan.envelope
    assert streamt_cli("apply", "-p", second.path).ok
    second.wait_state("RUNNING")
    assert first.pipeline != second.pipeline and [j["state"] for j in first.jobs()] == ["FAILED"]


def _as_before_scoped_names(project: CountProject, tmp_path: Path) -> str:
    """Turn a fresh deployment into one made before project-scoped names; the legacy job's id.

    The job runs under its job name alone and its ownership record is an old one: no attributes,
    the checksum the artifact had then. Everything else (topics, their records) stays.
    """
    from streamt.artifacts import Artifact, canonical_json
    from streamt.fsutil import atomic_write
    from streamt.state.records import OwnershipRecord, OwnershipState
    from streamt_flink.config import FlinkCluster, FlinkRuntime
    from streamt_flink.deployers import FlinkJobDeployer
    from streamt_flink.identity import legacy_checksum, statements_for

    compiled = tmp_path / "gen"
    from streamt.cli import run

    with (tmp_path / "o").open("w") as out, (tmp_path / "e").open("w") as err:
        assert run(["compile", "-p", str(project.path), "--output-dir", str(compiled)], out, err) == 0
    spec = json.loads((compiled / "flink" / f"{project.model}.json").read_text())
    artifact = Artifact("flink_job", project.model, project.model, spec)
    for job in project.live():
        requests.patch(f"{project.endpoints['rest']}/jobs/{job['jid']}?mode=cancel", timeout=10)
    project.wait_state("CANCELED")

    cluster = FlinkCluster(rest_url=project.endpoints["rest"], sql_gateway_url=project.endpoints["gateway"])
    flink = FlinkRuntime(clusters={"local": cluster})
    runtime = SimpleNamespace(section={"flink": flink}.get)  # what the deployer reads: runtime.flink
    legacy = FlinkJobDeployer(runtime)._submit(artifact, statements_for(artifact, project.model))
    assert legacy.outcome.ok, legacy

    state_path = project.path / ".streamt" / "state" / "default.json"
    document = json.loads(state_path.read_text())
    records = []
    for entry in document["resources"]:
        entry.pop("attributes", None)
        if entry["kind"] == "flink_job":
            entry["artifact_checksum"] = legacy_checksum(artifact)
        records.append(OwnershipRecord(**entry))
    old = OwnershipState(document["store_id"], document["address"], document["serial"], tuple(records))
    atomic_write(state_path, canonical_json(old.to_document()) + b"\n", mode=0o600)
    return str(legacy.job_id)


def test_a_legacy_named_job_is_kept_migrated_and_upgraded(count_project, streamt_cli, tmp_path):
    project = count_project()
    project.write(mode="savepoint")
    _deployed(streamt_cli, project)
    legacy_job = _as_before_scoped_names(project, tmp_path)
    legacy_name = project.model

    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and not plan.data["is_apply_blocked"], plan.envelope
    action = _flink_action(plan)
    assert action["action"] == "noop" and action["evidence"]["record_attributes"]["pipeline_name"] == legacy_name
    # Another project with the same model name and no record never sees the legacy job as its own.
    other = count_project(model=project.model)
    other.write()
    theirs = streamt_cli("plan", "-p", other.path)
    assert theirs.ok and not theirs.data["ownership_requirements"] and _flink_action(theirs)["action"] == "create"

    migrated = streamt_cli("apply", "-p", project.path)
    assert migrated.ok and migrated.data["operation_id"] is not None, migrated.envelope  # the record changed
    state = json.loads((project.path / ".streamt" / "state" / "default.json").read_text())
    (record,) = [r for r in state["resources"] if r["kind"] == "flink_job"]
    assert record["attributes"]["pipeline_name"] == legacy_name and record["attributes"]["job_id"] == legacy_job
    again = streamt_cli("apply", "-p", project.path)
    assert again.ok and again.data["operation_id"] is None

    project.write(word="y", mode="savepoint")
    planned, applied = _reviewed_apply(streamt_cli, project, tmp_path / "up.json")
    assert _flink_action(planned)["evidence"]["upgrade"]["running_as"] == legacy_name
    assert applied.ok, applied.envelope
    project.wait_state("RUNNING")  # now under the project-scoped name
    project.produce("k1")
    assert project.counts("k1", until=4)[-1] == 4  # the legacy job's state came along
    listed = requests.get(f"{project.endpoints['rest']}/jobs/overview", timeout=10).json()["jobs"]
    assert [j["state"] for j in listed if j["jid"] == legacy_job] == ["FINISHED"]
