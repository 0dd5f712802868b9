"""Project-scoped connector names, the owner marker, and how the planner treats a legacy-named connector
(fakes only; the real worker's rename is in tests/e2e/test_connect_scoped.py)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from streamt.artifacts import Artifact
from streamt.plan.model import ABSENT, CREATE, PRESENT, UPDATE, Observation, SafetyBlocker
from streamt_connect.live import RENAME_INCOMPLETE, ConnectorObserver, ConnectorPlanner
from streamt_connect.naming import MAX_NAME, owner_of, scoped_name

SCOPED = "shop.prod.orders_to_db"
ARTIFACT = Artifact(
    kind="connector",
    name="orders_to_db",
    identity=SCOPED,
    spec={
        "name": SCOPED,
        "cluster": "main",
        "config": {"name": SCOPED, "connector.class": "x.Y", "topics": "t", "streamt.owner": "shop/prod"},
    },
    ownership="managed",
    provider="streamt-connect",
)


def test_names_are_scoped_and_parseable_from_the_right() -> None:
    assert scoped_name("shop", "prod", "orders_to_db") == SCOPED
    # A project name with dots stays readable; characters Connect's REST paths refuse do not.
    assert scoped_name("acme.shop", "eu-1", "m") == "acme.shop.eu-1.m"
    assert scoped_name("my shop/%", "prod", "m") == "my_shop__.prod.m"


def test_long_names_end_with_a_digest_of_the_full_name() -> None:
    long_a, long_b = scoped_name("p" * 300, "prod", "a"), scoped_name("p" * 300, "prod", "b")
    assert len(long_a) == len(long_b) == MAX_NAME
    assert long_a != long_b
    assert long_a == scoped_name("p" * 300, "prod", "a")


@pytest.mark.parametrize(
    ("config", "owner"),
    [
        ({"streamt.owner": "shop/prod"}, {"project": "shop", "environment": "prod"}),
        ({"streamt.owner": "shop"}, None),
        ({"streamt.owner": 3}, None),
        ({}, None),
    ],
)
def test_owner_marker(config: dict[str, Any], owner: dict[str, str] | None) -> None:
    assert owner_of(config) == owner


def observe(listing: dict[str, Any]) -> Observation:
    observer = ConnectorObserver(SimpleNamespace(environment=dict))
    return observer._observe(SimpleNamespace(), listing, ARTIFACT)  # type: ignore[arg-type]


def listed(name: str, **extra: str) -> dict[str, Any]:
    return {name: {"info": {"config": {"name": name, "connector.class": "x.Y", "topics": "t", **extra}}}}


def test_a_legacy_connector_without_this_projects_record_is_not_looked_at() -> None:
    observation = observe(listed("orders_to_db"))
    assert observation.status == ABSENT and "legacy" in (observation.spec or {})
    [action] = ConnectorPlanner().plan(ARTIFACT, observation, None)
    assert action.action == CREATE
    assert action.evidence["observation"]["spec"] is None  # another project's connector is never bound


def test_an_owned_legacy_connector_is_renamed_by_a_reviewed_update() -> None:
    record = SimpleNamespace(identity="orders_to_db", attributes={})
    [action] = ConnectorPlanner().plan(ARTIFACT, observe(listed("orders_to_db")), record)
    assert action.action == UPDATE
    assert action.evidence["rename_from"] == "orders_to_db"
    assert action.evidence["requires"] == ["reviewed_plan"]
    assert action.summary == f"rename orders_to_db → {SCOPED} (consumer offsets carried over)"


def test_both_names_live_is_a_blocker() -> None:
    record = SimpleNamespace(identity="orders_to_db", attributes={})
    both = {**listed("orders_to_db"), **listed(SCOPED, **{"streamt.owner": "shop/prod"})}
    [blocker] = ConnectorPlanner().plan(ARTIFACT, observe(both), record)
    assert isinstance(blocker, SafetyBlocker) and blocker.reason == RENAME_INCOMPLETE


def test_the_owner_marker_is_observed() -> None:
    observation = observe(listed(SCOPED, **{"streamt.owner": "other/dev"}))
    assert observation.status == PRESENT
    assert (observation.spec or {})["owner"] == {"project": "other", "environment": "dev"}


def scripted(monkeypatch: pytest.MonkeyPatch, answers: list[Any]) -> list[tuple[str, str]]:
    from streamt_connect import rename
    from streamt_connect.client import ConnectClient

    calls: list[tuple[str, str]] = []
    script = iter(answers)

    def request(self: Any, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        calls.append((method, path))
        return next(script)

    monkeypatch.setattr(ConnectClient, "request", request)
    monkeypatch.setattr(rename, "PAUSE_SECONDS", 0)
    return calls


LEGACY_CONFIG = {"name": "orders_to_db", "connector.class": "x.Y", "topics": "t"}
STOPPED = (200, {"connector": {"state": "STOPPED"}, "tasks": []})


def test_a_rename_refused_before_the_new_connector_exists_resumes_the_old_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamt_connect.client import ConnectClient
    from streamt_connect.live import config_fingerprint
    from streamt_connect.rename import rename

    calls = scripted(monkeypatch, [(200, {"config": LEGACY_CONFIG}), (202, None), STOPPED, (500, None), (202, None)])
    outcome = rename(ConnectClient("http://c", "main"), "orders_to_db", SCOPED, {}, config_fingerprint(LEGACY_CONFIG))
    assert (outcome.status, outcome.error) == ("failed", "HTTP500")
    assert calls[-1] == ("PUT", "/connectors/orders_to_db/resume")
    assert ("POST", "/connectors") not in calls


def test_a_rename_failing_after_the_create_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamt_connect.client import ConnectClient
    from streamt_connect.live import config_fingerprint
    from streamt_connect.rename import rename

    offsets = {"offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 2}}]}
    answers = [(200, {"config": LEGACY_CONFIG}), (202, None), STOPPED, (200, offsets), (201, {}), (400, None)]
    calls = scripted(monkeypatch, answers)
    outcome = rename(ConnectClient("http://c", "main"), "orders_to_db", SCOPED, {}, config_fingerprint(LEGACY_CONFIG))
    assert (outcome.status, outcome.error) == ("unknown", "RenameIncomplete:HTTP400")
    assert calls[-1] == ("PATCH", f"/connectors/{SCOPED}/offsets")


def test_a_rename_of_a_connector_changed_since_the_plan_sends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamt_connect.client import ConnectClient
    from streamt_connect.rename import rename

    calls = scripted(monkeypatch, [(200, {"config": {**LEGACY_CONFIG, "topics": "other"}})])
    outcome = rename(ConnectClient("http://c", "main"), "orders_to_db", SCOPED, {}, "reviewed-fingerprint")
    assert (outcome.status, outcome.error) == ("failed", "PreimageChanged")
    assert calls == [("GET", "/connectors/orders_to_db")]
