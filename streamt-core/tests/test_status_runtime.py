"""``status_report`` with an observer that also reports a runtime state (a connector's RUNNING or FAILED)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from streamt import hookimpl
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.plan.model import ABSENT, NOOP, PRESENT, Action, Observation
from streamt.plugins import Plugins
from streamt.status.report import is_healthy, status_report


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
    return status_report(project, artifacts, plugins, include_external=False, lag=False, consumer_groups=False)


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
