"""The fixture plugin and the endpoints file contract."""

from __future__ import annotations

import json
import socket

import pytest
import streamt_stack_fixtures as fixtures
from streamt_devstack import config
from streamt_devstack.config import ENDPOINT_KEYS


def test_endpoints_file_has_exactly_the_documented_keys(stack):
    assert set(stack) == set(ENDPOINT_KEYS)
    path = fixtures._endpoints_file()
    if path.exists():
        assert set(json.loads(path.read_text())) == set(ENDPOINT_KEYS)


@pytest.mark.kafka
def test_marker_alone_ensures_the_service(stack):
    # The autouse requirement fixture started Kafka (or skipped/failed) because of the marker.
    assert stack["kafka_bootstrap"]


def test_the_stack_writes_only_its_own_endpoints_file():
    # config is read at import; a named file must not move where `devstack up` writes.
    assert config.ENDPOINTS_FILE == config.STATE_DIR / "endpoints.json"


@pytest.fixture
def named_stack(monkeypatch, tmp_path):
    """An endpoints file of another stack, named by STREAMT_STACK_ENDPOINTS, with one listening port."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    dead_port = closed.getsockname()[1]
    closed.close()
    live = f"127.0.0.1:{listener.getsockname()[1]}"
    endpoints = dict.fromkeys(ENDPOINT_KEYS)
    endpoints.update(
        kafka_bootstrap=live,
        kafka_sasl_bootstrap=live,
        postgres_dsn=f"postgresql://owner:s3cret-pw@127.0.0.1:{dead_port}/streamt",
        postgres_writer_dsn=f"postgresql://writer:s3cret-pw@127.0.0.1:{dead_port}/streamt",
        postgres_status_dsn=f"postgresql://status:s3cret-pw@127.0.0.1:{dead_port}/streamt",
    )
    path = tmp_path / "other-stack" / "endpoints.json"
    path.parent.mkdir()
    path.write_text(json.dumps(endpoints))
    monkeypatch.setenv("STREAMT_STACK_ENDPOINTS", str(path))
    monkeypatch.delenv("STREAMT_STACK_AUTOSTART", raising=False)
    monkeypatch.delenv("CI", raising=False)
    yield path
    listener.close()


def test_a_named_stack_is_used_as_it_is_and_never_started(named_stack, monkeypatch):
    from streamt_devstack import stack

    started = []
    monkeypatch.setattr(stack, "up", lambda *a, **k: started.append(a))
    monkeypatch.setattr(stack, "acquire_lease", lambda *a, **k: started.append("lease"))
    before = named_stack.read_bytes()
    manager = fixtures.StackManager({"kafka", "postgres", "flink"})
    assert manager.autostart
    assert manager.require("kafka")["kafka_bootstrap"].startswith("127.0.0.1:")
    assert started == [] and not manager.leased
    assert named_stack.read_bytes() == before


def test_a_named_stack_that_does_not_answer_skips_without_its_password(named_stack):
    manager = fixtures.StackManager({"postgres"})
    with pytest.raises(pytest.skip.Exception) as skipped:
        manager.require("postgres")
    text = str(skipped.value)
    assert "postgres_dsn" in text and "nothing answers at 127.0.0.1:" in text
    assert "s3cret-pw" not in text and "owner" not in text
    # Remembered: a second test of the same service skips at once, with the same reason.
    with pytest.raises(pytest.skip.Exception) as again:
        manager.require("postgres")
    assert str(again.value) == text


def test_a_service_missing_from_a_named_stack_says_whose_file_it_is(named_stack, monkeypatch):
    monkeypatch.setenv("CI", "true")
    manager = fixtures.StackManager({"flink"})
    with pytest.raises(pytest.fail.Exception) as failed:
        manager.require("flink")
    assert "named by STREAMT_STACK_ENDPOINTS" in str(failed.value)
    assert not manager.leased


def test_a_session_that_will_start_services_takes_its_lease_once_before_any_test(monkeypatch):
    # Under pytest-xdist each worker is a session: its lease must exist before another worker can end.
    from streamt_devstack import stack

    leases = []
    monkeypatch.setattr(stack, "acquire_lease", lambda *a, **k: leases.append("lease"))
    monkeypatch.delenv("STREAMT_STACK_ENDPOINTS", raising=False)
    monkeypatch.delenv("STREAMT_STACK_AUTOSTART", raising=False)
    manager = fixtures.StackManager({"kafka"})
    manager.announce()
    manager.announce()
    assert leases == ["lease"] and manager.leased
    fixtures.StackManager(set()).announce()  # a session of service-free tests starts nothing
    monkeypatch.setenv("STREAMT_STACK_AUTOSTART", "0")
    fixtures.StackManager({"kafka"}).announce()  # nor one that may not start services
    assert leases == ["lease"]


def test_in_the_fast_lane_a_service_request_fails_with_the_reason():
    manager = fixtures.StackManager(set(), fast_lane=True)
    with pytest.raises(pytest.fail.Exception) as failed:
        manager.require("kafka")
    assert "needs devstack service 'kafka' but runs in the fast lane" in str(failed.value)
