"""``streamt.log``: the provider-request and executor-step hooks, path templates and ``--log-format``."""

from __future__ import annotations

import json

import pytest
from streamt import log
from streamt.cli import LOG_FORMATS, _command_name, _sniff_output


@pytest.mark.parametrize(
    ("path", "template"),
    [
        ("/connectors/orders_to_db/status", "/connectors/{}/status"),
        ("/subjects/shop.orders-value/versions/latest?normalize=true", "/subjects/{}/versions/latest"),
        ("/jobs/4f2a9c1e0b7d4a5e8c3b2a1f0e9d8c7b/savepoints", "/jobs/{}/savepoints"),
        ("/v1/sessions/6b0d-11ee/statements", "/v1/sessions/{}/statements"),
        ("/gateway/v2/interceptor/Mask%20pii", "/gateway/v2/interceptor/{}"),
        ("/jobs/overview", "/jobs/overview"),
    ],
)
def test_a_path_template_keeps_the_api_words_and_drops_names_and_queries(path: str, template: str) -> None:
    assert log.path_template(path) == template


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().err.splitlines()]


def test_a_request_is_logged_at_debug_only_with_its_status_or_its_failure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(log, "_FORMAT", log.JSON)
    monkeypatch.setenv("STREAMT_LOG_LEVEL", "WARNING")
    with log.provider_request("connect", "GET", "/connectors/a_b") as logged:
        logged.status = 200
    assert capsys.readouterr().err == ""

    monkeypatch.setenv("STREAMT_LOG_LEVEL", "DEBUG")
    with log.provider_request("connect", "PUT", "/connectors/a_b/config") as logged:
        logged.status = 201
    with pytest.raises(TimeoutError), log.provider_request("connect", "DELETE", "/connectors/a_b"):
        raise TimeoutError
    ok, failed = _lines(capsys)
    assert (ok["method"], ok["path"], ok["status"], ok["provider"]) == ("PUT", "/connectors/{}/config", 201, "connect")
    assert (failed["method"], failed["status"]) == ("DELETE", "TimeoutError") and failed["duration_ms"] >= 0


def test_log_format_is_a_global_option_that_takes_a_value() -> None:
    assert set(LOG_FORMATS) == {log.KEYVALUE, log.JSON}
    argv = ["--log-format", "json", "-o", "json", "state", "status"]
    assert _sniff_output(argv) == "json" and _command_name(argv) == "state status"
    assert _command_name(["--log-format", "keyvalue", "plan", "--offline"]) == "plan"


def test_an_unknown_log_format_is_a_usage_error_in_the_envelope(streamt_cli) -> None:
    refused = streamt_cli("--log-format", "xml", "plugins")
    assert refused.error_codes == ["E900_USAGE_ERROR"]
