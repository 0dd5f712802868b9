"""``status_report`` with an observer that also reports a runtime state (a connector's RUNNING or FAILED)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from streamt import hookimpl
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.plan.model import ABSENT, NOOP, PRESENT, Action, Observation
from streamt.plugins import Plugins
from streamt.sdk import ArtifactKind
from streamt.status.render import status_text
from streamt.status.report import is_healthy, sections, status_report


class Observer:
    kinds = ("connector",)

    def __init__(self, states: dict[str, Any] | None = None) -> None:
        self.states = states

    def observe(self, artifacts: list[Artifact]) -> dict[str, Observation]:
        return {a.identity: Observation(ABSENT if a.identity == "gone" else PRESENT, {}) for a in artifacts}

    def runtime_status(self, artifacts: list[Artifact]) -> dict[str, dict[str, Any]]:
        if self.states is None:
            raise StreamtError(Codes.E406_CONNECTION_REFUSED, "down", "")
        return {a.identity: self.states[a.identity] for a in artifacts}


class Planner:
    kinds = ("connector",)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        return [Action.for_artifact(NOOP, artifact, "", observation)]


def _report(observer: Observer) -> dict[str, Any]:
    class Provider:
        @hookimpl
        def streamt_observers(self, runtime: Any) -> list[Any]:
            return [observer]

        @hookimpl
        def streamt_planners(self) -> list[Any]:
            return [Planner()]

    plugins = Plugins()
    plugins.register(Provider(), "fake-connect")
    artifacts = tuple(
        Artifact(kind="connector", name=n, identity=n, spec={}, ownership="managed", provider="p")
        for n in ("up", "broken", "gone")
    )
    project = SimpleNamespace(runtime=None)
    return status_report(
        project, artifacts, plugins, listed=sections(plugins), include_external=False, lag=False, consumer_groups=False
    )


def test_runtime_state_replaces_ok_and_unhealthy_states_fail_health() -> None:
    report = _report(
        Observer({"up": {"state": "RUNNING", "healthy": True}, "broken": {"state": "FAILED", "healthy": False}})
    )
    rows = {e["name"]: e for e in report["connectors"]}
    assert rows["up"]["status"] == "RUNNING" and rows["broken"]["status"] == "FAILED"
    assert rows["gone"]["status"] == "MISSING" and "state" not in rows["gone"]  # absent: never asked
    assert not is_healthy(report)
    assert is_healthy({"connectors": [rows["up"]]})


def test_an_unreadable_runtime_state_is_unavailable() -> None:
    rows = {e["name"]: e for e in _report(Observer(None))["connectors"]}
    assert rows["up"]["status"] == "UNAVAILABLE" and rows["up"]["error"] == "E406_CONNECTION_REFUSED"


def test_a_kind_a_plugin_registers_gets_its_own_section_in_rank_order() -> None:
    class LakeProvider:
        @hookimpl
        def streamt_artifact_kinds(self) -> list[ArtifactKind]:
            return [
                ArtifactKind("lake_table", "lake", "lake_tables", 15, title="Lake Tables"),
                ArtifactKind("lake_table_removal", "lake/removals", "lake_table_removals", 85),
            ]

        @hookimpl
        def streamt_observers(self, runtime: Any) -> list[Any]:
            observer = Observer({"t1": {"state": "ACTIVE", "healthy": False}})
            observer.kinds = ("lake_table",)
            return [observer]

    plugins = Plugins()
    plugins.register(LakeProvider(), "lake")
    listed = sections(plugins)
    assert listed == (("lake_table", "lake_tables", "Lake Tables"),)  # a removal kind is no section
    table = Artifact(kind="lake_table", name="t1", identity="t1", spec={}, ownership="managed", provider="lake")
    report = status_report(
        SimpleNamespace(runtime=None),
        (table,),
        plugins,
        listed=listed,
        include_external=False,
        lag=False,
        consumer_groups=False,
    )
    assert report["lake_tables"][0]["status"] == "ACTIVE"
    assert status_text(report, listed).splitlines()[:2] == ["Lake Tables:", "  ACTIVE t1"]
    assert not is_healthy(report)  # its entry's health counts like any first-party kind's
