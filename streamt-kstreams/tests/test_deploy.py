"""Deployer outcomes against a fake engine: failed only when nothing is left, unknown when it may exist."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import docker
import pytest
import requests
from streamt.sdk import CREATE, Action, Artifact
from streamt_kstreams import deploy, engine

SPEC = {
    "application_id": "streamt-p-default-m",
    "project": "p",
    "environment": "default",
    "container_name": "streamt-p-default-m",
    "state_volume": "streamt-p-default-m-state",
    "runtime": {"image": "sha256:" + "1" * 64, "docker_network": "host"},
}
RUNTIME = SimpleNamespace(kafka=SimpleNamespace(security_protocol="PLAINTEXT", sasl_mechanism=None, sasl_username=None))


class FakeEngine:
    def __init__(self, *, create: Any = None, states: list[dict] | None = None, remove_fails: bool = False):
        self.create_error = create
        self.states = states or [{"State": {"Status": "running", "Health": {"Status": "healthy"}}}]
        self.remove_fails = remove_fails
        self.removed: list[tuple[str, bool]] = []
        self.started = False
        self.volumes = SimpleNamespace(create=lambda **_: None)
        self.containers = SimpleNamespace(create=self._create)
        self.api = SimpleNamespace(inspect_container=self._inspect, remove_container=self._remove)

    def _create(self, **options: Any) -> Any:
        if self.create_error is not None:
            raise self.create_error
        self.options = options
        return SimpleNamespace(id="c" * 64, put_archive=lambda *_: True, start=self._start)

    def _start(self) -> None:
        self.started = True

    def _inspect(self, container_id: str) -> dict:
        state = self.states.pop(0) if len(self.states) > 1 else self.states[0]
        return {"Id": container_id, "RestartCount": 0, **state}

    def _remove(self, container_id: str, force: bool, v: bool) -> None:
        if self.remove_fails:
            raise requests.ConnectionError("gone")
        self.removed.append((container_id, v))

    def close(self) -> None:
        pass


def run(monkeypatch: pytest.MonkeyPatch, fake: FakeEngine) -> tuple[str, deploy.KafkaStreamsDeployer]:
    monkeypatch.setattr(engine, "client", lambda *_a, **_k: fake)
    artifact = Artifact(kind="kafka_streams_job", name="m", identity="m", spec=SPEC, ownership="managed", provider="x")
    deployer = deploy.KafkaStreamsDeployer(RUNTIME, poll_seconds=0.01)
    action = Action.for_artifact(CREATE, artifact, "", SimpleNamespace(to_json=lambda: {}))
    outcome = deployer.apply(CREATE, [(action, artifact)])["m"]
    return outcome.status, deployer


def api_error(status: int) -> docker.errors.APIError:
    return docker.errors.APIError("refused", response=SimpleNamespace(status_code=status))


def test_running_is_done_and_rollback_removes_exactly_that_container(monkeypatch) -> None:
    fake = FakeEngine()
    status, deployer = run(monkeypatch, fake)
    assert status == "done" and fake.started and deployer.created == {"m": "c" * 64}
    action = SimpleNamespace(action=CREATE)
    assert deployer.rollback(action, SimpleNamespace(identity="m")) is True
    assert fake.removed == [("c" * 64, False)]  # never its volume


def test_a_refused_create_is_failed_and_a_lost_answer_is_unknown(monkeypatch) -> None:
    assert run(monkeypatch, FakeEngine(create=api_error(409)))[0] == "failed"
    assert run(monkeypatch, FakeEngine(create=api_error(500)))[0] == "unknown"
    assert run(monkeypatch, FakeEngine(create=requests.ReadTimeout("no answer")))[0] == "unknown"


def test_a_runner_that_exits_is_removed_and_failed_unless_removal_fails(monkeypatch) -> None:
    exited = [{"State": {"Status": "exited"}}]
    fake = FakeEngine(states=exited)
    status, deployer = run(monkeypatch, fake)
    assert status == "failed" and fake.removed == [("c" * 64, False)] and deployer.created == {}
    assert run(monkeypatch, FakeEngine(states=exited, remove_fails=True))[0] == "unknown"


def test_a_runner_that_never_gets_running_is_removed_after_the_timeout(monkeypatch) -> None:
    monkeypatch.setenv(deploy.TIMEOUT_ENV, "0.2")
    fake = FakeEngine(states=[{"State": {"Status": "running", "Health": {"Status": "starting"}}}])
    assert run(monkeypatch, fake)[0] == "failed" and fake.removed
