"""``STREAMT_KAFKA_CONNECT_TIMEOUT``: how long streamt keeps trying to reach the cluster."""

from __future__ import annotations

import time

import pytest
from streamt.sdk import StreamtError
from streamt_kafka.admin import BOOTSTRAP_TIMEOUT_MS, CONNECT_TIMEOUT_ENV, bootstrap_timeout_ms, client_config


@pytest.mark.parametrize(
    ("raw", "ms"),
    [(None, BOOTSTRAP_TIMEOUT_MS), ("", BOOTSTRAP_TIMEOUT_MS), ("0.3", 300), (" 20 ", 20_000), ("300", 300_000)],
)
def test_seconds_become_the_bootstrap_timeout(raw: str | None, ms: int) -> None:
    assert bootstrap_timeout_ms({} if raw is None else {CONNECT_TIMEOUT_ENV: raw}) == ms


@pytest.mark.parametrize("raw", ["0", "-1", "300.5", "abc", "nan", "inf", "8s"])
def test_a_value_out_of_bounds_is_a_usage_error_with_the_default_named(raw: str) -> None:
    with pytest.raises(StreamtError) as caught:
        bootstrap_timeout_ms({CONNECT_TIMEOUT_ENV: raw})
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code.code == "E900_USAGE_ERROR"
    assert CONNECT_TIMEOUT_ENV in diagnostic.message and raw not in ("", diagnostic.message)
    assert diagnostic.suggestion == "Unset it for the default of 8 seconds."


def test_every_client_gets_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "2.5")
    assert client_config({"bootstrap_servers": "127.0.0.1:9"})["bootstrap_timeout_ms"] == 2500


def test_a_refused_cluster_is_reported_within_the_setting(streamt_cli, streamt_project, monkeypatch) -> None:
    project = streamt_project({"stream_project.yml": {
        "project": {"name": "nowhere"},
        "runtime": {"kafka": {"bootstrap_servers": "127.0.0.1:9"}},
        "models": [{"name": "orders", "materialized": "topic"}],
    }})  # fmt: skip
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "0.3")
    started = time.monotonic()
    refused = streamt_cli("plan", "-p", project)
    assert refused.error_codes == ["E406_CONNECTION_REFUSED"], refused.envelope
    assert time.monotonic() - started < BOOTSTRAP_TIMEOUT_MS / 1000  # the default would take 8 s
    monkeypatch.setenv(CONNECT_TIMEOUT_ENV, "soon")
    bad = streamt_cli("plan", "-p", project)
    assert bad.error_codes == ["E900_USAGE_ERROR"], bad.envelope
    assert "Traceback" not in bad.stdout + bad.stderr
