"""The offline plan engine: ownership first, then planners by kind, in dependency order."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamt import hookimpl
from streamt.artifacts import Artifact
from streamt.compile import CompiledProject
from streamt.errors import Codes, StreamtError
from streamt.plan import Action, Observation, SafetyBlocker, plan_offline, plan_text
from streamt.plugins import get_plugins
from streamt.project.loader import load_project


@pytest.fixture
def project(streamt_project: Callable[..., Path]) -> Any:
    files = {
        "stream_project.yml": {
            "project": {"name": "p"},
            "runtime": {"kafka": {"bootstrap_servers": "localhost:9092", "sasl_password": "hunter2-sentinel"}},
        }
    }
    return load_project(streamt_project(files))


def compiled(*artifacts: Artifact) -> CompiledProject:
    return CompiledProject("p", "1", None, "default", artifacts)


class LakePlanner:
    kinds = ("lake_table",)

    def __init__(self) -> None:
        self.observations: list[Observation] = []

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        self.observations.append(observation)
        return [
            Action.for_artifact("create", artifact, "fresh lake", observation),
            SafetyBlocker("lake_rewrite", artifact.kind, artifact.identity, "lakes cannot be rewritten"),
        ]


@pytest.fixture
def lake() -> Iterator[LakePlanner]:
    planner = LakePlanner()

    class Plugin:
        @hookimpl
        def streamt_planners(self) -> list[Any]:
            return [planner]

    with get_plugins().temporarily(Plugin(), "fake-lake-planner"):
        yield planner


def test_external_is_a_noop_adopted_is_not_created_and_planners_see_an_assumed_absence(
    project: Any, lake: LakePlanner
) -> None:
    artifacts = (
        Artifact("lake_table", "t", "t", {}),
        Artifact("lake_table", "ext", "ext", {}, ownership="external"),
        Artifact("lake_table", "adp", "adp", {}, ownership="adopted"),
    )
    plan = plan_offline(project, compiled(*artifacts))
    assert [(a.identity, a.action) for a in plan.actions] == [("t", "create"), ("ext", "noop"), ("adp", "noop")]
    assert [o.status for o in lake.observations] == ["absent"] and lake.observations[0].assumed
    assert plan.counts == {"create": 1, "update": 0, "delete": 0, "noop": 2, "adopt": 0}
    assert plan.is_apply_blocked and [b.reason for b in plan.safety_blockers] == ["lake_rewrite"]
    assert plan.offline and plan.state is None and not plan.can_authorize_apply


def test_kinds_without_a_planner_fall_back_to_create(project: Any) -> None:
    plan = plan_offline(project, compiled(Artifact("weird_kind", "w", "w", {})))
    assert [(a.kind, a.action) for a in plan.actions] == [("weird_kind", "create")]


def test_an_offline_plan_never_plans_a_tombstone(project: Any) -> None:
    # A removal needs live evidence and a reviewed online plan (dsl.md section 15): never "to delete" offline.
    with pytest.raises(StreamtError) as refused:
        plan_offline(project, compiled(Artifact("connector_removal", "old", "old", {})))
    assert refused.value.diagnostics[0].code == Codes.E418_REVIEWED_PLAN_REQUIRED


def test_actions_keep_the_compiled_dependency_order_and_text_groups_them_by_kind(project: Any) -> None:
    artifacts = (
        Artifact("topic", "a", "a.v1", {"name": "a.v1"}, ownership="external"),
        Artifact("topic", "b", "b.v1", {"name": "b.v1", "partitions": 12, "replication_factor": 3}),
        Artifact("flink_job", "b", "b", {}, depends_on=(("topic", "b.v1"),)),
    )
    plan = plan_offline(project, compiled(*artifacts))
    assert [a.identity for a in plan.actions] == ["a.v1", "b.v1", "b"]
    text = plan_text(plan)
    assert text.splitlines()[0] == "Plan: 2 to create, 0 to update, 0 to delete"
    assert "Topics:\n  = a.v1 (external: declaration only)\n  + b.v1 (12 partitions, rf=3)" in text
    assert "Flink Jobs:\n  + b" in text


def test_the_environment_fingerprint_binds_the_target_but_never_a_secret(
    streamt_project: Callable[..., Path], project: Any
) -> None:
    plan = plan_offline(project, compiled())
    other = load_project(
        streamt_project(
            {"stream_project.yml": {"project": {"name": "p"}, "runtime": {"kafka": {"bootstrap_servers": "prod:9092"}}}}
        )
    )
    assert plan_offline(other, compiled()).environment_fingerprint != plan.environment_fingerprint
    same_but_password = load_project(
        streamt_project(
            {
                "stream_project.yml": {
                    "project": {"name": "p"},
                    "runtime": {"kafka": {"bootstrap_servers": "localhost:9092", "sasl_password": "other"}},
                }
            }
        )
    )
    assert plan_offline(same_but_password, compiled()).environment_fingerprint == plan.environment_fingerprint
