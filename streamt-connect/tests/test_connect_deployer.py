"""Outcome rules of the connector deployer, with a scripted client (the real worker is in tests/e2e)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from streamt.apply.outcome import DONE, FAILED, UNKNOWN
from streamt.artifacts import Artifact
from streamt.plan.model import ABSENT, CREATE, PRESENT, UPDATE, Action, Observation
from streamt_connect import deployers
from streamt_connect.client import ConnectClient, MaybeSent
from streamt_connect.live import ConnectorPlanner, live_view

ARTIFACT = Artifact(
    kind="connector",
    name="c",
    identity="c",
    spec={"name": "c", "cluster": "main", "config": {"name": "c", "connector.class": "x.Y", "topics": "t"}},
    ownership="managed",
    provider="streamt-connect",
)


# The deployer's runtime, of which these tests read only the environment placeholders resolve from.
NO_VARIABLES = SimpleNamespace(environment=dict)


def run(monkeypatch: pytest.MonkeyPatch, verb: str, answers: list[Any], observation: Observation) -> Any:
    client = ConnectClient("http://connect", "main")
    monkeypatch.setattr(deployers, "client_for", lambda runtime, cluster: client)
    script = iter(answers)

    def request(self: Any, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        answer = next(script)
        if isinstance(answer, Exception):
            raise answer
        return answer

    monkeypatch.setattr(ConnectClient, "request", request)
    action = Action.for_artifact(verb, ARTIFACT, "", observation)
    deployer = deployers.ConnectorDeployer(NO_VARIABLES, attempts=2, pause_seconds=0, visible_seconds=0)
    return deployer.apply(verb, [(action, ARTIFACT)])["c"]


def test_a_confirmed_create_waits_until_the_listing_shows_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    client = ConnectClient("http://connect", "main")
    monkeypatch.setattr(deployers, "client_for", lambda runtime, cluster: client)
    listed = {"c": {"info": {"config": dict(ARTIFACT.spec["config"])}}}
    answers = iter([(201, {}), (409, None), (200, {}), (200, listed)])
    paths: list[str] = []

    def request(self: Any, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        paths.append(path)
        return next(answers)

    monkeypatch.setattr(ConnectClient, "request", request)
    action = Action.for_artifact(CREATE, ARTIFACT, "", Observation(ABSENT))
    outcome = deployers.ConnectorDeployer(NO_VARIABLES, pause_seconds=0).apply(CREATE, [(action, ARTIFACT)])["c"]
    assert outcome.status == DONE
    assert paths == ["/connectors"] + ["/connectors?expand=info"] * 3  # a rebalance, then not yet listed


def test_a_rebalance_409_with_the_connector_still_absent_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = run(monkeypatch, CREATE, [(409, None), (404, None), (201, {})], Observation(ABSENT))
    assert outcome.status == DONE


def test_a_409_twice_while_provably_unchanged_failed_before_mutation(monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = run(monkeypatch, CREATE, [(409, None), (404, None), (409, None), (404, None)], Observation(ABSENT))
    assert (outcome.status, outcome.error) == (FAILED, "HTTP409")


def test_a_409_with_the_connector_present_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    present = (200, {"name": "c", "config": dict(ARTIFACT.spec["config"])})
    assert run(monkeypatch, CREATE, [(409, None), present], Observation(ABSENT)).status == UNKNOWN


def test_an_update_409_is_failed_only_when_the_live_config_is_as_observed(monkeypatch: pytest.MonkeyPatch) -> None:
    old = {"name": "c", "connector.class": "x.Y", "topics": "old"}
    seen = Observation(PRESENT, live_view(ARTIFACT, old, {}))
    as_seen = (200, {"name": "c", "config": old})
    assert run(monkeypatch, UPDATE, [(409, None), as_seen, (200, {})], seen).status == DONE
    moved = (200, {"name": "c", "config": {**old, "topics": "t"}})
    assert run(monkeypatch, UPDATE, [(409, None), moved], seen).status == UNKNOWN


@pytest.mark.parametrize(
    ("answer", "expected"),
    [((400, None), FAILED), ((500, None), UNKNOWN), (MaybeSent("ReadTimeout"), UNKNOWN), ((200, {}), UNKNOWN)],
)
def test_refusals_fail_and_silence_is_unknown(monkeypatch: pytest.MonkeyPatch, answer: Any, expected: str) -> None:
    # 200 on a create (POST answers 201) is not a confirmation.
    assert run(monkeypatch, CREATE, [answer], Observation(ABSENT)).status == expected


def test_secret_values_never_reach_the_observation(monkeypatch: pytest.MonkeyPatch) -> None:
    artifact = Artifact(
        kind="connector",
        name="c",
        identity="c",
        spec={"name": "c", "config": {"name": "c", "connection.password": "${PW}", "db.token": "literal"}},
        ownership="managed",
        provider="p",
    )
    live = {"name": "c", "connection.password": "old-pw", "db.token": "tok", "extra": "v"}
    view = live_view(artifact, live, {"PW": "hunter2"})
    assert view == {
        "config": {"name": "c"},
        "secret_keys": {"connection.password": "differs", "db.token": "differs"},
        "undeclared_keys": ["extra"],
    }
    (action,) = ConnectorPlanner().plan(artifact, Observation(PRESENT, view))
    assert action.action == UPDATE and "hunter2" not in str(action.to_json()) and "old-pw" not in action.summary
