"""Flink job planning decisions, job selection, placeholder resolution (pure; the live path is tests/e2e)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamt.artifacts import Artifact
from streamt.errors import StreamtError
from streamt.plan.model import Observation, SafetyBlocker
from streamt.project.loader import load_project
from streamt_flink.deployers import FlinkJobDeployer, split
from streamt_flink.placeholders import resolve_placeholders
from streamt_flink.planning import FlinkJobObserver, FlinkJobPlanner, select_job
from streamt_flink.rest import LiveJob
from streamt_testing import write_project

JOB = Artifact(
    "flink_job", "agg", "agg", {"job_name": "agg", "cluster": "local", "statements": ["SET 'a' = 'b'", "INSERT x"]}
)


class Record:
    def __init__(self, checksum: str, **attributes: object) -> None:
        self.artifact_checksum = checksum
        self.attributes = attributes


def _plan(observation: Observation, record: object = None) -> tuple[list[str], list[str]]:
    out = FlinkJobPlanner().plan(JOB, observation, record)
    actions = [a.action for a in out if not isinstance(a, SafetyBlocker)]
    return actions, [b.reason for b in out if isinstance(b, SafetyBlocker)]


def _live(state: str, live: int = 1) -> Observation:
    return Observation("present", {"name": "agg", "state": state, "job_id": "j1", "live_jobs": live})


def test_absent_is_a_create() -> None:
    assert _plan(Observation("absent")) == (["create"], [])


SASL_JOB = Artifact(
    "flink_job",
    "agg",
    "agg",
    {"job_name": "agg", "cluster": "local", "statements": ["CREATE TABLE t (...) WITH ('p' = '${PW_7Q}')", "INSERT x"]},
)


def _observer(root: Path, dotenv: str | None) -> FlinkJobObserver:
    cluster = {"rest_url": "http://127.0.0.1:9", "sql_gateway_url": "http://127.0.0.1:9"}
    runtime = {
        "kafka": {"bootstrap_servers": "127.0.0.1:9"},
        "flink": {"default": "local", "clusters": {"local": cluster}},
    }
    write_project(root, {"stream_project.yml": {"project": {"name": "pw"}, "runtime": runtime}})
    if dotenv is not None:
        (root / ".env").write_text(dotenv)
    return FlinkJobObserver(load_project(root).runtime)


def test_an_online_plan_with_an_unset_variable_fails_before_any_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PW_7Q", raising=False)
    with pytest.raises(StreamtError) as caught:
        _observer(tmp_path / "none", None).observe([SASL_JOB])
    assert caught.value.diagnostics[0].code.code == "E502_ENV_VAR_ERROR"
    assert "PW_7Q" in caught.value.diagnostics[0].message and ".env" in str(caught.value.diagnostics[0].suggestion)


def test_the_project_env_file_feeds_a_flink_placeholder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue 28, finding 9 / dsl.md section 2.3: `.env` feeds every `${VAR}`, not only the process environment."""
    monkeypatch.delenv("PW_7Q", raising=False)
    observer = _observer(tmp_path / "dotenv", "PW_7Q=secret-value\n")
    with pytest.raises(StreamtError) as caught:
        observer.observe([SASL_JOB])  # resolvable: the observer goes on to ask the (absent) cluster
    assert caught.value.diagnostics[0].code.code == "E406_CONNECTION_REFUSED"
    submitted = FlinkJobDeployer(observer.runtime)._submit(SASL_JOB, list(SASL_JOB.spec["statements"]))
    assert submitted.outcome.error == "E406_CONNECTION_REFUSED"  # resolved from .env, then the cluster was asked


def test_planning_needs_no_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PW_7Q", raising=False)
    for observation in (Observation("absent"), Observation("absent", assumed=True)):
        (action,) = FlinkJobPlanner().plan(SASL_JOB, observation)
        assert action.action == "create"  # the observer checked the variables; the planner is pure


@pytest.mark.parametrize("state", ["RUNNING", "CREATED", "CRASH_LOOPING"])
def test_same_checksum_and_active_is_a_noop(state: str) -> None:
    assert _plan(_live(state), Record(JOB.checksum)) == (["noop"], [])


def test_another_checksum_is_an_update_with_a_blocker() -> None:
    assert _plan(_live("RUNNING"), Record("sha256:old")) == (["update"], ["flink_job_update"])


@pytest.mark.parametrize("state", ["SUSPENDED", "CANCELLING", "FAILING"])
def test_a_job_that_is_settling_is_blocked_even_when_unchanged(state: str) -> None:
    assert _plan(_live(state, live=0), Record(JOB.checksum)) == (["update"], ["flink_job_not_running"])


def test_two_live_jobs_with_the_name_are_blocked() -> None:
    assert _plan(_live("RUNNING", live=2), Record(JOB.checksum)) == (["update"], ["flink_job_duplicate"])


def test_unavailable_is_never_planned() -> None:
    with pytest.raises(ValueError):
        FlinkJobPlanner().plan(JOB, Observation("unavailable"))


def test_select_job_prefers_the_live_job_over_history() -> None:
    jobs = [LiveJob("old", "agg", "CANCELED", 5), LiveJob("new", "agg", "RUNNING", 1), LiveJob("x", "other", "RUNNING")]
    assert select_job(jobs, "agg").spec == {"name": "agg", "state": "RUNNING", "job_id": "new", "live_jobs": 1}
    only_history = [LiveJob("a", "agg", "FAILED", 1), LiveJob("b", "agg", "CANCELED", 2)]
    assert select_job(only_history, "agg").spec == {
        "name": "agg",
        "state": "CANCELED",
        "job_id": "b",
        "live_jobs": 0,
        "history_only": True,
    }
    assert select_job(jobs, "nope").status == "absent"


def test_placeholders_resolve_in_memory_and_a_missing_one_is_e502() -> None:
    line = "'properties.sasl.jaas.config' = 'M required username=\"u\" password=\"${PW}\";'"
    assert 'password="s3cret"' in resolve_placeholders(line, {"PW": "s3cret"})
    with pytest.raises(StreamtError) as caught:
        resolve_placeholders(line, {})
    assert caught.value.diagnostics[0].code.code == "E502_ENV_VAR_ERROR"
    assert "PW" in caught.value.diagnostics[0].message


def test_split_requires_exactly_one_trailing_insert() -> None:
    assert split(["SET 'a' = 'b'", "CREATE TABLE t", "INSERT INTO t SELECT 1"])[1] == "INSERT INTO t SELECT 1"
    with pytest.raises(ValueError):
        split(["INSERT INTO t SELECT 1", "SET 'a' = 'b'"])
