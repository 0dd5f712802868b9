"""Job identity, upgrade modes, resubmits, state-compatibility checks and recovery classification (pure)."""

from __future__ import annotations

import json
from typing import Any

from streamt.artifacts import Artifact
from streamt.plan.model import Observation, SafetyBlocker
from streamt.project.loader import load_project
from streamt_flink import planning
from streamt_flink.compat import incompatibilities
from streamt_flink.deployers import restore_settings
from streamt_flink.identity import definition_checksum, legacy_checksum, record_attributes
from streamt_flink.job import compile_model
from streamt_flink.planning import FlinkJobPlanner
from streamt_flink.recovery import classify_recovery
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


def test_the_restore_point_is_the_newest_retained_savepoint_or_checkpoint() -> None:
    latest = {
        "completed": {"id": 7, "external_path": "file:/cp/chk-7", "discarded": False},
        "savepoint": {"id": 5, "external_path": "file:/sp/savepoint-5", "discarded": False},
    }
    assert FlinkRestClient("http://f", _Http({"latest": latest})).restore_point("j") == "file:/cp/chk-7"
    latest["completed"]["discarded"] = True  # a cancelled job's checkpoints are deleted
    assert FlinkRestClient("http://f", _Http({"latest": latest})).restore_point("j") == "file:/sp/savepoint-5"
    assert FlinkRestClient("http://f", _Http({"latest": {}})).restore_point("j") is None


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


def test_observation_is_one_job_list_plus_a_checkpoint_read_per_stopped_job(monkeypatch: Any) -> None:
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
    assert client.calls == ["overview", "checkpoints b"]
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
    bad = streamt_cli("validate", "-p", streamt_project(_project({"upgrade_mode": "last-state"})))
    assert "E501_PARSE_ERROR" in bad.error_codes and "upgrade_mode" in json.dumps(bad.envelope)
    defaults = streamt_project(_project({}, {"upgrade_mode": "savepoint", "ignore_unclaimed_state": True}))
    project = load_project(str(defaults))
    spec = compile_model(project, project.model("counts")).spec
    assert spec["lifecycle"] == {"upgrade_mode": "savepoint", "ignore_unclaimed_state": True}
    assert spec["pipeline_name"] == "shop/default/counts"
