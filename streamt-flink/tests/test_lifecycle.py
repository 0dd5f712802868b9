"""Job identity, upgrade modes, resubmits, state-compatibility checks, recovery classification and crash
loops (the root cause, the plan a crash loop gets, the last-state deployer steps) — pure."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from streamt.artifacts import Artifact
from streamt.plan.model import Action, Observation, SafetyBlocker
from streamt.project.loader import load_project
from streamt.sdk import DONE, FAILED, UNKNOWN, Outcome
from streamt_flink import deployers, planning
from streamt_flink import rest as rest_module
from streamt_flink.compat import incompatibilities
from streamt_flink.deployers import FlinkJobDeployer, Submitted, restore_settings
from streamt_flink.failures import describe, redact, root_cause
from streamt_flink.identity import definition_checksum, delete_on_cancel_checksum, legacy_checksum, record_attributes
from streamt_flink.job import RETENTION, compile_model
from streamt_flink.planning import FlinkJobPlanner
from streamt_flink.recovery import classify_recovery, recovery_record_attributes
from streamt_flink.rest import FlinkRestClient, LiveJob

OLD = [
    "SET 'pipeline.name' = 'shop/dev/counts'",
    "CREATE TABLE IF NOT EXISTS `raw` (`id` STRING, `name` STRING) WITH ('connector' = 'kafka')",
    "CREATE TABLE IF NOT EXISTS `counts_sink` (`id` STRING, `n` BIGINT, PRIMARY KEY (`id`) NOT ENFORCED) "
    "WITH ('connector' = 'upsert-kafka')",
    "INSERT INTO `counts_sink` SELECT id, COUNT(*) AS n FROM `raw` WHERE name <> 'x' GROUP BY id",
]


def job(statements: list[str] = OLD, mode: str = "blocked") -> Artifact:
    spec = {
        "job_name": "counts",
        "pipeline_name": "shop/dev/counts",
        "cluster": "local",
        "lifecycle": {"upgrade_mode": mode, "ignore_unclaimed_state": False},
        "settings": {"pipeline.name": "shop/dev/counts", "parallelism.default": "1"},
        "statements": list(statements),
    }
    return Artifact("flink_job", "counts", "counts", spec)


def changed(sql: str) -> list[str]:
    return [*OLD[:-1], sql]


COMPATIBLE = changed("INSERT INTO `counts_sink` SELECT id, COUNT(*) AS n FROM `raw` WHERE name <> 'y' GROUP BY id")


class Record:
    def __init__(self, checksum: str, **attributes: Any) -> None:
        self.artifact_checksum = checksum
        self.attributes = attributes


def owned(artifact: Artifact, job_id: str = "j1") -> Record:
    return Record(artifact.checksum, **record_attributes(artifact, job_id))


def view(state: str = "RUNNING", job_id: str = "j1", live: int = 1, **extra: Any) -> dict[str, Any]:
    found = {"name": "shop/dev/counts", "state": state, "job_id": job_id, "live_jobs": live, **extra}
    if live == 0:
        found["history_only"] = True
    return found


def plan(artifact: Artifact, observation: Observation, record: Any = None) -> tuple[list[Any], list[str]]:
    out = FlinkJobPlanner().plan(artifact, observation, record)
    return [a for a in out if not isinstance(a, SafetyBlocker)], [b.reason for b in out if isinstance(b, SafetyBlocker)]


def test_create_shows_the_parallelism() -> None:
    (action,), _ = plan(job(), Observation("absent"))
    assert (action.action, action.summary) == ("create", "parallelism: 1")


def test_changing_only_the_upgrade_mode_is_not_a_change_of_the_job() -> None:
    record = owned(job(mode="blocked"))
    (action,), blockers = plan(job(mode="savepoint"), Observation("present", view()), record)
    assert (action.action, blockers) == ("noop", [])


def test_blocked_is_the_default_and_names_the_modes() -> None:
    record = owned(job())
    out = FlinkJobPlanner().plan(job(COMPATIBLE), Observation("present", view()), record)
    assert [b.reason for b in out if isinstance(b, SafetyBlocker)] == ["flink_job_update"]
    assert "upgrade_mode" in out[1].message


def test_savepoint_mode_is_a_reviewed_update_with_the_old_statements_for_rollback() -> None:
    (action,), blockers = plan(job(COMPATIBLE, "savepoint"), Observation("present", view()), owned(job()))
    assert blockers == [] and (action.action, action.summary) == ("update", "savepoint upgrade")
    upgrade = action.evidence["upgrade"]
    assert upgrade["mode"] == "savepoint" and upgrade["job_id"] == "j1"
    assert upgrade["previous_statements"] == OLD
    assert action.evidence["requires"] == ["reviewed_plan"] and action.evidence["upgrade_mode"] == "savepoint"


def test_stateless_mode_needs_force_and_says_it_drops_state() -> None:
    (action,), _ = plan(job(COMPATIBLE, "stateless"), Observation("present", view()), owned(job()))
    assert action.evidence["requires"] == ["reviewed_plan", "force"]
    assert "drops its state" in action.summary and "from scratch" in action.summary


def test_state_incompatible_changes_are_blockers_with_reasons() -> None:
    regrouped = changed("INSERT INTO `counts_sink` SELECT name AS id, COUNT(*) AS n FROM `raw` GROUP BY name")
    out = FlinkJobPlanner().plan(job(regrouped, "savepoint"), Observation("present", view()), owned(job()))
    (blocker,) = [b for b in out if isinstance(b, SafetyBlocker)]
    assert blocker.reason == "flink_state_incompatible" and "GROUP BY keys changed" in blocker.message


def test_no_recorded_statements_cannot_be_checked() -> None:
    legacy = Record(job().checksum)
    _, blockers = plan(job(COMPATIBLE, "savepoint"), Observation("present", view()), legacy)
    assert blockers == ["flink_state_compatibility_unknown"]


def test_compatibility_heuristics() -> None:
    assert incompatibilities(OLD, COMPATIBLE) == []
    summed = changed("INSERT INTO `counts_sink` SELECT id, SUM(1) AS n FROM `raw` GROUP BY id")
    assert "aggregate functions changed" in " ".join(incompatibilities(OLD, summed))
    windowed_a = changed("INSERT INTO s SELECT id, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), "
                         "INTERVAL '1' MINUTE)) GROUP BY id, window_start, window_end")  # fmt: skip
    windowed_b = [*windowed_a[:-1], windowed_a[-1].replace("'1' MINUTE", "'5' MINUTE")]
    assert incompatibilities(windowed_a, windowed_b) == ["the window changed"]
    rekeyed = [*OLD[:2], OLD[2].replace("PRIMARY KEY (`id`)", "PRIMARY KEY (`n`)"), OLD[3]]
    assert incompatibilities(OLD, rekeyed) == ["a table's primary key changed (the upsert state is keyed by it)"]


def test_a_stopped_job_with_a_savepoint_is_a_reviewed_resubmit_from_it() -> None:
    stopped = view("FAILED", live=0, restore="file:/sp/savepoint-1")
    (action,), blockers = plan(job(), Observation("present", stopped), owned(job()))
    assert blockers == [] and action.evidence["upgrade"]["restore_from"] == "file:/sp/savepoint-1"
    assert action.evidence["requires"] == ["reviewed_plan"] and "FAILED" in action.summary


def test_a_stopped_job_without_retained_state_is_a_forced_fresh_resubmit() -> None:
    (action,), _ = plan(job(), Observation("present", view("FAILED", live=0, restore=None)), owned(job()))
    assert action.evidence["requires"] == ["reviewed_plan", "force"] and "state is dropped" in action.summary


def test_an_unowned_leftover_in_history_is_a_create() -> None:
    (action,), _ = plan(job(), Observation("present", view("CANCELED", live=0)), None)
    assert action.action == "create"


def test_a_legacy_named_job_is_read_for_its_old_record_and_migrated() -> None:
    old_record = Record(legacy_checksum(job()))  # written before project-scoped names, no attributes
    legacy = {"name": "counts", "state": "RUNNING", "job_id": "old", "live_jobs": 1}
    (action,), blockers = plan(job(), Observation("absent", {"legacy": legacy}), old_record)
    assert (action.action, blockers) == ("noop", [])
    attributes = action.evidence["record_attributes"]
    assert attributes["pipeline_name"] == "counts" and attributes["job_id"] == "old"
    assert "SET 'pipeline.name' = 'counts'" in attributes["statements"]
    assert attributes["definition"] == definition_checksum(job(), "counts")
    # Migrated: the record names the legacy job, which stays the managed one.
    migrated = Record(job().checksum, **attributes)
    (again,), _ = plan(job(), Observation("absent", {"legacy": legacy}), migrated)
    assert again.action == "noop" and "record_attributes" not in again.evidence


def test_a_cancelled_leftover_under_the_new_name_does_not_hide_the_live_legacy_job() -> None:
    legacy = {"name": "counts", "state": "RUNNING", "job_id": "old", "live_jobs": 1}
    leftover = Observation("present", {**view("CANCELED", job_id="gone", live=0), "legacy": legacy})
    (action,), _ = plan(job(), leftover, Record(legacy_checksum(job())))
    assert action.action == "noop" and action.evidence["record_attributes"]["job_id"] == "old"


def test_another_projects_job_of_the_same_model_name_is_never_looked_at() -> None:
    legacy = {"name": "counts", "state": "FAILED", "job_id": "theirs", "live_jobs": 0, "history_only": True}
    (action,), blockers = plan(job(), Observation("absent", {"legacy": legacy}), None)
    assert (action.action, blockers) == ("create", [])


def test_restore_settings() -> None:
    assert restore_settings(None, True) == []
    assert restore_settings("file:/sp/1", False) == ["SET 'execution.savepoint.path' = 'file:/sp/1'"]
    assert restore_settings("file:/sp/1", True)[1] == "SET 'execution.savepoint.ignore-unclaimed-state' = 'true'"


def _classify(action: str, resolution: str, observation: Observation, *evidence: dict[str, Any]) -> str | None:
    return classify_recovery(resolution, {"action": action}, [], list(evidence), observation, job())


def test_recovery_a_create_cancelled_by_the_rollback_is_prior() -> None:
    cancelled = Observation("present", view("CANCELED", live=0))
    assert _classify("create", "rolled_back", cancelled) == "prior"
    assert _classify("create", "observed", Observation("absent")) == "prior"
    assert _classify("create", "observed", Observation("present", view())) == "candidate"
    assert _classify("create", "rolled_back", Observation("present", view())) is None


def test_recovery_of_an_upgrade() -> None:
    running_old = Observation("present", view(job_id="old"))
    running_new = Observation("present", view(job_id="new"))
    stopped = Observation("present", view("FINISHED", job_id="old", live=0, restore="file:/sp/1"))
    replacing, saved = {"mode": "savepoint", "replacing": "old"}, {"savepoint": "file:/sp/1"}
    assert _classify("update", "rolled_back", running_old, replacing) == "prior"  # the savepoint never completed
    assert _classify("update", "observed", stopped, replacing, saved) == "prior"  # killed before the resubmit
    assert _classify("update", "rolled_back", stopped, replacing, saved) is None
    assert _classify("update", "observed", running_new, replacing, saved, {"submitted": "new"}) == "candidate"
    rolled = {"rolled_back_to": "new"}
    assert _classify("update", "rolled_back", running_new, replacing, saved, rolled) == "prior"
    assert _classify("update", "observed", Observation("present", view(live=2)), replacing) is None


def test_the_legacy_checksum_is_the_checksum_before_scoped_names_and_checkpoint_retention() -> None:
    retention = "SET 'execution.checkpointing.externalized-checkpoint-retention' = 'DELETE_ON_CANCELLATION'"
    artifact = job([retention, *OLD])
    artifact.spec["settings"]["execution.checkpointing.externalized-checkpoint-retention"] = "DELETE_ON_CANCELLATION"
    before = {k: v for k, v in artifact.spec.items() if k not in ("lifecycle", "pipeline_name")}
    before["settings"] = {"pipeline.name": "counts", "parallelism.default": "1"}
    before["statements"] = ["SET 'pipeline.name' = 'counts'", *OLD[1:]]
    assert legacy_checksum(artifact) == Artifact("flink_job", "counts", "counts", before).checksum


class _Http:
    def __init__(self, body: dict[str, Any]) -> None:
        self.body = body

    def request(self, method: str, url: str, **_: Any) -> Any:
        class Response:  # the client parses the bytes (streamt.sdk.json_body), not .json()
            status_code, content = 200, json.dumps(self.body).encode()

        return Response()


class _Answers(_Http):
    """One body per request, the last one repeated (the REST API's cache turning over)."""

    def __init__(self, *bodies: dict[str, Any]) -> None:
        super().__init__(bodies[0])
        self.bodies, self.asked = list(bodies), 0

    def request(self, method: str, url: str, **kwargs: Any) -> Any:
        self.body = self.bodies[min(self.asked, len(self.bodies) - 1)]
        self.asked += 1
        return super().request(method, url, **kwargs)


def test_a_stale_answer_with_only_discarded_checkpoints_is_read_again(monkeypatch: Any) -> None:
    stale = {"latest": {"completed": {"id": 5, "external_path": "file:/cp/chk-5", "discarded": True}}}
    fresh = {"latest": {"completed": {"id": 6, "external_path": "file:/cp/chk-6", "discarded": False}}}
    answers = _Answers(stale, fresh)
    assert FlinkRestClient("http://f", answers).restore_point("j") == "file:/cp/chk-6" and answers.asked == 2
    monkeypatch.setattr(rest_module, "STATS_SETTLE_SECONDS", 0.0)
    assert FlinkRestClient("http://f", _Answers(stale)).restore_point("j") is None  # deleted on cancel: none
    never = _Answers({"latest": {"completed": None}})
    assert FlinkRestClient("http://f", never).restore_point("j") is None and never.asked == 1  # nothing to wait for


def test_the_restore_point_is_the_newest_retained_savepoint_or_checkpoint(monkeypatch: Any) -> None:
    monkeypatch.setattr(rest_module, "STATS_SETTLE_SECONDS", 0.0)
    latest = {
        "completed": {"id": 7, "external_path": "file:/cp/chk-7", "discarded": False},
        "savepoint": {"id": 5, "external_path": "file:/sp/savepoint-5", "discarded": False},
    }
    assert FlinkRestClient("http://f", _Http({"latest": latest})).restore_point("j") == "file:/cp/chk-7"
    latest["completed"]["discarded"] = True  # a cancelled job's checkpoints are deleted
    assert FlinkRestClient("http://f", _Http({"latest": latest})).restore_point("j") == "file:/sp/savepoint-5"
    assert FlinkRestClient("http://f", _Http({"latest": {}})).restore_point("j") is None
    # Seen on Flink 2.2 after a failure: `latest.completed` still names the subsumed checkpoint.
    stale = {"completed": {"id": 5, "external_path": "file:/cp/chk-5", "discarded": True}}
    history = [
        {"id": 6, "status": "COMPLETED", "external_path": "file:/cp/chk-6", "discarded": False},
        {"id": 7, "status": "FAILED"},
        {"id": 5, "status": "COMPLETED", "external_path": "file:/cp/chk-5", "discarded": True},
    ]
    body = {"latest": stale, "history": history}
    assert FlinkRestClient("http://f", _Http(body)).restore_point("j") == "file:/cp/chk-6"


def test_an_owned_job_the_cluster_no_longer_lists_is_a_reviewed_resubmit() -> None:
    (fresh,), _ = plan(job(), Observation("absent"), owned(job()))
    assert fresh.evidence["requires"] == ["reviewed_plan", "force"] and "no longer lists" in fresh.summary
    saved = Record(job().checksum, **record_attributes(job(), "j1", savepoint="file:/sp/7"))
    (restore,), _ = plan(job(), Observation("absent"), saved)
    assert restore.evidence["upgrade"]["restore_from"] == "file:/sp/7" and restore.evidence["requires"] == [
        "reviewed_plan"
    ]


def test_another_projects_legacy_job_stays_out_of_the_evidence() -> None:
    legacy = {"name": "counts", "state": "RUNNING", "job_id": "theirs", "live_jobs": 1}
    (action,), _ = plan(job(), Observation("present", {**view(), "legacy": legacy}), owned(job()))
    assert "legacy" not in action.evidence["observation"]["spec"]
    (create,), _ = plan(job(), Observation("absent", {"legacy": legacy}), None)
    assert create.evidence["observation"]["spec"] is None


class _CountingRest:
    url = "http://flink"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def jobs(self) -> list[LiveJob]:
        self.calls.append("overview")
        return [
            LiveJob("a", "shop/dev/counts", "RUNNING", 2),
            LiveJob("b", "shop/dev/other", "FAILED", 1),
            LiveJob("c", "counts", "RUNNING", 1),  # a legacy-named job (another project's, maybe)
        ]

    def restore_point(self, job_id: str) -> str | None:
        self.calls.append(f"checkpoints {job_id}")
        return None

    def exceptions(self, job_id: str) -> dict[str, Any]:
        self.calls.append(f"exceptions {job_id}")
        return {"exceptionHistory": {"entries": []}}


def test_observation_is_one_job_list_an_exception_read_per_live_job_and_a_checkpoint_read_per_stopped_job(
    monkeypatch: Any,
) -> None:
    client = _CountingRest()
    monkeypatch.setattr(planning, "rest_client", lambda runtime, artifact: client)
    monkeypatch.setattr(planning, "gateway_url", lambda runtime, artifact: "http://gateway")
    other = Artifact(
        "flink_job", "other", "other", {**job().spec, "job_name": "other", "pipeline_name": "shop/dev/other"}
    )
    many = [job(), other] + [
        Artifact("flink_job", f"m{i}", f"m{i}", {**job().spec, "job_name": f"m{i}", "pipeline_name": f"shop/dev/m{i}"})
        for i in range(50)
    ]
    seen = planning.FlinkJobObserver(runtime=None).observe(many)
    assert client.calls == ["overview", "exceptions a", "exceptions c", "checkpoints b"]
    assert seen["counts"].spec["job_id"] == "a" and seen["counts"].spec["legacy"]["job_id"] == "c"
    assert seen["other"].spec["history_only"] is True and seen["m7"].status == "absent"


def _project(flink: dict[str, Any], defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "shop"},
            "runtime": {
                "kafka": {"bootstrap_servers": "localhost:9092"},
                "flink": {"default": "local", "clusters": {"local": {"rest_url": "http://f"}}},
            },
            "defaults": {"models": {"flink": defaults}} if defaults else {},
            "sources": [{"name": "raw", "topic": "raw", "columns": [{"name": "id", "type": "STRING"}]}],
            "models": [
                {
                    "name": "counts",
                    "materialized": "flink",
                    "sql": 'SELECT id FROM {{ source("raw") }}',
                    "advanced": {"flink": flink},
                }
            ],
        }
    }


def test_upgrade_mode_is_validated_and_compiled_from_the_model_or_the_defaults(streamt_project, streamt_cli) -> None:
    bad = streamt_cli("validate", "-p", streamt_project(_project({"upgrade_mode": "rolling"})))
    assert "E501_PARSE_ERROR" in bad.error_codes and "upgrade_mode" in json.dumps(bad.envelope)
    defaults = streamt_project(_project({}, {"upgrade_mode": "savepoint", "ignore_unclaimed_state": True}))
    project = load_project(str(defaults))
    spec = compile_model(project, project.model("counts")).spec
    assert spec["lifecycle"] == {"upgrade_mode": "savepoint", "ignore_unclaimed_state": True}
    assert spec["pipeline_name"] == "shop/default/counts"


ENFORCER = (
    "org.apache.flink.table.runtime.operators.sink.constraint.EnforcerException: Column 'id' is NOT NULL, however, "
    "a null value is being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' "
    "to suppress this exception and drop such records silently.\n\tat org.apache.flink.Foo.bar(Foo.java:55)\n"
)
JSON_TRACE = (
    "org.apache.flink.runtime.JobException: Recovery is suppressed by NoRestartBackoffTimeStrategy\n"
    "\tat x.y(Z.java:1)\n"
    "Caused by: java.io.IOException: Failed to deserialize consumer record ConsumerRecord(topic = raw.v1, "
    "partition = 2, leaderEpoch = 0, offset = 41, CreateTime = 1, key = null, value = [B@1)\n"
    "Caused by: java.io.IOException: Failed to deserialize JSON 'card 4111 1111 secret'.\n\t... 15 more\n"
    "Caused by: org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParseException: Unrecognized token "
    "'card': was expecting (JSON String or token 'null') at sasl://user:pw@host:9092\n at [Source: UNKNOWN; line: 1]\n"
)


def history(trace: str, at: int | None = None) -> dict[str, Any]:
    stamp = int(time.time() * 1000) if at is None else at
    return {"exceptionHistory": {"entries": [{"exceptionName": trace.split(":")[0], "stacktrace": trace,
                                              "timestamp": stamp}]}}  # fmt: skip


def test_the_root_cause_is_the_deepest_caused_by_with_record_values_and_addresses_redacted() -> None:
    cause = root_cause(history(JSON_TRACE, at=7), ["id", "n"])
    assert cause == {
        "exception": "org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParseException",
        "message": "Unrecognized token '<redacted>': was expecting (JSON String or token 'null') at <address>",
        "timestamp": 7,
        "source": {"topic": "raw.v1", "partition": 2, "offset": 41},
    }
    assert "secret" not in str(cause) and "4111" not in str(cause) and "pw@" not in str(cause)
    assert describe(cause).startswith("JsonParseException: Unrecognized token") and "raw.v1[2]@41" in describe(cause)


def test_a_failure_without_caused_by_keeps_its_first_line_and_the_columns_it_quotes() -> None:
    cause = root_cause(history(ENFORCER), ["id"])
    assert cause is not None and cause["exception"].endswith("EnforcerException")
    assert cause["message"].startswith("Column 'id' is NOT NULL")
    assert "'table.exec.sink.not-null-enforcer'='DROP'" in cause["message"] and "source" not in cause
    assert root_cause({"exceptionHistory": {"entries": []}}) is None and root_cause(None) is None
    assert len(redact("x" * 1000)) == 240


class _Rest:
    """A cluster with one job: its state, newest failure and checkpointing, and what was asked of it."""

    url = "http://flink"

    def __init__(self, state: str, failure: dict[str, Any] | None, checkpoint: str | None, retains: bool) -> None:
        self.state, self.failure, self.checkpoint, self.retains = state, failure, checkpoint, retains
        self.calls: list[str] = []

    def jobs(self) -> list[Any]:
        return [LiveJob("j1", "shop/dev/counts", self.state, 1)]

    def exceptions(self, job_id: str) -> Any:
        return self.failure

    def restore_point(self, job_id: str) -> str | None:
        return self.checkpoint

    def retains_on_cancel(self, job_id: str) -> bool:
        return self.retains

    def cancel(self, job_id: str) -> None:
        self.calls.append(f"cancel {job_id}")
        self.state = "CANCELED"
        self.checkpoint = self.after_cancel or self.checkpoint

    after_cancel: str | None = None  # a checkpoint that completed between the first read and the cancel

    def job_state(self, job_id: str) -> str:
        return self.state


def sinking(artifact: Artifact) -> Artifact:
    artifact.spec["sink"] = {"columns": [{"name": "id", "type": "STRING"}, {"name": "n", "type": "BIGINT"}]}
    return artifact


def observe(monkeypatch: Any, rest: _Rest, mode: str = "savepoint") -> Observation:
    monkeypatch.setattr(planning, "rest_client", lambda runtime, artifact: rest)
    monkeypatch.setattr(planning, "gateway_url", lambda runtime, artifact: "http://gateway")
    return planning.FlinkJobObserver(runtime=None).observe([sinking(job(mode=mode))])["counts"]


@pytest.mark.parametrize(
    ("state", "failure", "looping"),
    [
        ("RESTARTING", None, True),
        ("RESTARTING", (ENFORCER, None), True),
        ("RUNNING", (ENFORCER, None), True),  # between two attempts of the loop
        ("RUNNING", (ENFORCER, 1), False),  # one failure long ago, running since
        ("RUNNING", None, False),
    ],
)
def test_a_restarting_or_lately_failed_job_is_crash_looping(monkeypatch, state, failure, looping) -> None:
    # Stamped when the test runs, not at collection: a long session must not age a recent failure.
    failure = None if failure is None else history(*failure)
    seen = observe(monkeypatch, _Rest(state, failure, "file:/chk/3", True))
    assert (seen.spec["state"] == "CRASH_LOOPING") is looping
    assert "timestamp" not in str(seen.spec)  # a reviewed plan binds the observation: nothing that ticks
    if looping:
        assert seen.spec["retained_checkpoint"] is True
    if looping and failure:
        assert seen.spec["cause"]["exception"].endswith("EnforcerException")
        status = planning.FlinkJobObserver(runtime=None).runtime_status([sinking(job())])["counts"]
        assert status["healthy"] is False and status["reason"].startswith("EnforcerException: Column 'id'")


def _looping(retained: bool) -> Observation:
    cause = {"exception": "x.EnforcerException", "message": "Column 'id' is NOT NULL"}
    return Observation("present", view("CRASH_LOOPING", cause=cause, retained_checkpoint=retained))


@pytest.mark.parametrize("mode", ["savepoint", "last-state"])
def test_a_crash_looping_job_is_upgraded_from_its_checkpoint_never_through_a_savepoint(mode: str) -> None:
    (action,), blockers = plan(job(COMPATIBLE, mode=mode), _looping(True), owned(job()))
    assert blockers == [] and action.evidence["upgrade"]["mode"] == "last-state"
    assert action.evidence["requires"] == ["reviewed_plan"]
    assert action.evidence["upgrade"]["previous_statements"] == OLD
    assert "EnforcerException" in action.summary and "savepoint cannot be taken" in action.summary


def test_without_a_retained_checkpoint_a_crash_loop_needs_a_forced_stateless_upgrade() -> None:
    (action,), blockers = plan(job(COMPATIBLE, mode="savepoint"), _looping(False), owned(job()))
    assert blockers == [] and action.evidence["upgrade"]["mode"] == "stateless"
    assert action.evidence["requires"] == ["reviewed_plan", "force"] and "drops its state" in action.summary


def test_blocked_says_which_mode_to_set_and_unchanged_sql_is_a_noop_naming_the_cause() -> None:
    _, blocker = FlinkJobPlanner().plan(job(COMPATIBLE), _looping(True), owned(job()))
    assert isinstance(blocker, SafetyBlocker) and blocker.reason == "flink_job_update"
    assert "crash-looping (EnforcerException" in blocker.message and "upgrade_mode to last-state" in blocker.message
    (noop,), none = plan(job(), _looping(True), owned(job()))
    assert (noop.action, none) == ("noop", []) and noop.summary.startswith("CRASH_LOOPING: EnforcerException")


def test_last_state_of_a_healthy_job_without_a_checkpoint_is_blocked() -> None:
    observation = Observation("present", view(retained_checkpoint=False))
    _, blockers = plan(job(COMPATIBLE, mode="last-state"), observation, owned(job()))
    assert blockers == ["flink_job_no_retained_checkpoint"]
    (action,), _ = plan(job(COMPATIBLE, mode="last-state"), Observation("present", view(retained_checkpoint=True)),
                        owned(job()))  # fmt: skip
    assert action.evidence["upgrade"]["mode"] == "last-state"


def test_a_job_deployed_with_delete_on_cancellation_is_still_the_same_job() -> None:
    retained = "SET 'execution.checkpointing.externalized-checkpoint-retention' = 'RETAIN_ON_CANCELLATION'"
    artifact = job([OLD[0], retained, *OLD[1:]])
    artifact.spec["settings"][RETENTION] = "RETAIN_ON_CANCELLATION"
    before = {**record_attributes(artifact, "j1"), "definition": delete_on_cancel_checksum(artifact)}
    assert before["definition"] != definition_checksum(artifact)
    (action,), _ = plan(artifact, Observation("present", view()), Record(artifact.checksum, **before))
    assert action.action == "noop"


class _ScriptedSubmits(FlinkJobDeployer):
    """The real deployer steps; each submission's outcome comes from ``outcomes`` (the gateway is elsewhere)."""

    def __init__(self, outcomes: list[Outcome]) -> None:
        super().__init__(runtime=None, confirm_seconds=1, stats_settle_seconds=0)
        self.outcomes, self.sent = outcomes, []

    def _submit(self, artifact: Any, statements: list[str], running: bool = False) -> Submitted:
        self.sent.append(statements)
        outcome = self.outcomes.pop(0)
        return Submitted(outcome, None if outcome.status == FAILED else f"new{len(self.sent)}")  # refused: no job


def _deployer(monkeypatch: Any, rest: _Rest, submit: list[Outcome]) -> tuple[FlinkJobDeployer, list[Any]]:
    monkeypatch.setattr(deployers, "rest_client", lambda runtime, artifact: rest)
    deployer = _ScriptedSubmits(submit)
    return deployer, deployer.sent


def _last_state_action() -> Action:
    upgrade = {"mode": "last-state", "job_id": "j1", "running_as": "shop/dev/counts", "previous_statements": OLD}
    return Action("update", "flink_job", "counts", "counts", "managed", "flink", "c", "s", {"upgrade": upgrade})


def test_last_state_journals_the_checkpoint_before_the_cancel_and_resubmits_from_it(monkeypatch) -> None:
    rest = _Rest("RESTARTING", None, "file:/chk/3", True)
    deployer, sent = _deployer(monkeypatch, rest, [Outcome(DONE)])
    journal: list[tuple[dict[str, Any], list[str]]] = []
    outcome = deployer.apply(
        "update", [(_last_state_action(), job(COMPATIBLE))], lambda i, e: journal.append((e, list(rest.calls)))
    )["counts"]
    assert outcome.status == DONE and outcome.attributes["savepoint"] == "file:/chk/3"
    assert journal[1] == ({"checkpoint": "file:/chk/3"}, [])  # durable before the cancel
    assert rest.calls == ["cancel j1"] and "SET 'execution.savepoint.path' = 'file:/chk/3'" in sent[0]
    assert sent[0][-1] == COMPATIBLE[-1]


def test_last_state_restores_a_checkpoint_that_completed_before_the_cancel_took_effect(monkeypatch) -> None:
    rest = _Rest("RUNNING", None, "file:/chk/3", True)
    rest.after_cancel = "file:/chk/4"
    deployer, sent = _deployer(monkeypatch, rest, [Outcome(DONE)])
    entries: list[dict[str, Any]] = []
    outcome = deployer.apply("update", [(_last_state_action(), job(COMPATIBLE))], lambda i, e: entries.append(e))
    assert outcome["counts"].attributes["savepoint"] == "file:/chk/4"
    assert entries[1] == {"checkpoint": "file:/chk/3"}  # journaled before the cancel
    assert entries[2] == {"cancelled": "j1", "checkpoint": "file:/chk/4"}
    assert "SET 'execution.savepoint.path' = 'file:/chk/4'" in sent[0]


def test_last_state_touches_nothing_without_a_checkpoint_a_cancel_keeps(monkeypatch) -> None:
    rest = _Rest("RESTARTING", None, "file:/chk/3", False)
    deployer, sent = _deployer(monkeypatch, rest, [])
    outcome = deployer.apply("update", [(_last_state_action(), job(COMPATIBLE))])["counts"]
    assert (outcome.status, outcome.error, rest.calls, sent) == (FAILED, "NoRetainedCheckpoint", [], [])


def test_a_refused_resubmit_after_the_cancel_restores_the_old_sql_from_the_same_checkpoint(monkeypatch) -> None:
    rest = _Rest("RESTARTING", None, "file:/chk/3", True)
    deployer, sent = _deployer(monkeypatch, rest, [Outcome(FAILED, "E403_FLINK_SQL_ERROR"), Outcome(DONE)])
    entries: list[dict[str, Any]] = []
    outcome = deployer.apply("update", [(_last_state_action(), job(COMPATIBLE))], lambda i, e: entries.append(e))
    assert (outcome["counts"].status, outcome["counts"].error) == (FAILED, "E403_FLINK_SQL_ERROR")
    assert sent[1][-1] == OLD[-1] and "SET 'execution.savepoint.path' = 'file:/chk/3'" in sent[1]
    assert {"rolling_back_from": "file:/chk/3"} in entries
    looping_again = Observation("present", view("CRASH_LOOPING", job_id="new2"))
    intent = {"action": "update"}
    assert classify_recovery("rolled_back", intent, [], entries, looping_again, job(COMPATIBLE)) == "prior"


def test_an_unconfirmed_rollback_still_names_the_job_running_the_old_sql(monkeypatch) -> None:
    rest = _Rest("RESTARTING", None, "file:/chk/3", True)
    submits = [Outcome(FAILED, "E403_FLINK_SQL_ERROR"), Outcome(UNKNOWN, "JobNotRunning")]
    deployer, _ = _deployer(monkeypatch, rest, submits)
    entries: list[dict[str, Any]] = []  # the old SQL's job gets an id but is never seen RUNNING
    outcome = deployer.apply("update", [(_last_state_action(), job(COMPATIBLE))], lambda i, e: entries.append(e))
    assert outcome["counts"].status == UNKNOWN and "RollbackNotConfirmed" in str(outcome["counts"].error)
    assert {"rolled_back_to": "new2"} in entries
    looping_again = Observation("present", view("CRASH_LOOPING", job_id="new2"))
    assert classify_recovery("observed", {"action": "update"}, [], entries, looping_again, job(COMPATIBLE)) == "prior"


def test_a_kill_after_the_cancel_recovers_as_prior_and_a_candidate_keeps_the_checkpoint() -> None:
    entries = [{"mode": "last-state", "replacing": "j1"}, {"checkpoint": "file:/chk/3"}, {"cancelled": "j1"}]
    stopped = Observation("present", view("CANCELED", live=0, restore="file:/chk/3"))
    assert classify_recovery("observed", {"action": "update"}, [], entries, stopped, job(COMPATIBLE)) == "prior"
    running = Observation("present", view(job_id="new1"))
    submitted = [*entries, {"submitted": "new1"}]
    assert classify_recovery("observed", {"action": "update"}, [], submitted, running, job()) == "candidate"
    attributes = recovery_record_attributes("candidate", submitted, running, job())
    assert attributes is not None and attributes["savepoint"] == "file:/chk/3"
    # the next plan resubmits the new SQL from the cancelled job's retained checkpoint
    (action,), blockers = plan(job(COMPATIBLE, mode="last-state"), stopped, owned(job()))
    assert blockers == [] and action.evidence["upgrade"]["restore_from"] == "file:/chk/3"


def test_an_unconfirmed_cancel_is_unknown(monkeypatch) -> None:
    rest = _Rest("RESTARTING", None, "file:/chk/3", True)
    rest.cancel = lambda job_id: None  # type: ignore[method-assign]  # accepted, never takes effect
    deployer, _ = _deployer(monkeypatch, rest, [])
    outcome = deployer.apply("update", [(_last_state_action(), job(COMPATIBLE))])["counts"]
    assert (outcome.status, outcome.error) == (UNKNOWN, "CancelNotConfirmed")
