"""The webhook plugin's per-model settings: checked, typed, shown; and its compiler keeps the contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import streamt_webhook
from streamt.sdk import load_project, model_section
from streamt_testing.contracts import CompilerContract
from streamt_webhook import KIND, WebhookSettings


def project(settings: dict[str, Any], *, strict: bool = True, under_advanced: bool = False) -> dict[str, Any]:
    model: dict[str, Any] = {"name": "orders_hook", "materialized": KIND, "from": [{"source": "orders_raw"}]}
    if under_advanced:
        model["advanced"] = {KIND: settings}
    else:
        model[KIND] = settings
    document = {
        "project": {"name": "shop"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "orders_raw", "topic": "orders.raw"}],
        "models": [model],
    }
    return {"stream_project.yml": {"apiVersion": "streamt.dev/v1alpha1", **document} if strict else document}


ROUTE = {"path": "/hooks/x", "method": "POST"}


@pytest.fixture
def webhook(streamt_plugin) -> None:
    streamt_plugin(streamt_webhook, name="http_webhook", isolated=True)


class TestWebhookCompiler(CompilerContract):
    @pytest.fixture(autouse=True)
    def webhook_plugin(self, webhook) -> None:
        pass

    @pytest.fixture
    def compiler_project(self, streamt_project) -> Path:
        return streamt_project(project(ROUTE))

    @pytest.fixture
    def compiler_kinds(self) -> list[str]:
        return [KIND]


def test_the_compiler_reads_the_settings_typed(webhook, streamt_project) -> None:
    loaded = load_project(streamt_project(project(ROUTE)))
    model = loaded.model("orders_hook")
    assert model_section(model, KIND, WebhookSettings) == WebhookSettings(path="/hooks/x", method="POST")
    (artifact,) = streamt_webhook.streamt_compile(loaded, model)
    assert artifact.spec == {"path": "/hooks/x", "method": "POST", "reads": ["orders.raw"]}


def test_the_settings_may_be_written_under_advanced(webhook, streamt_project) -> None:
    loaded = load_project(streamt_project(project({"path": "/hooks/y"}, under_advanced=True)))
    assert model_section(loaded.model("orders_hook"), KIND, WebhookSettings) == WebhookSettings(path="/hooks/y")


def test_a_mistyped_key_is_e501_at_its_line_with_a_suggestion(webhook, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(project({"path": "/hooks/x", "methd": "POST"})))
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E501_PARSE_ERROR"
    assert "Unknown key 'models[0].http_webhook.methd'" in error["message"]
    assert "stream_project.yml:" in error["location"]
    assert "method" in error["suggestion"]


def test_in_legacy_mode_a_mistyped_key_is_a_warning(webhook, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(project({**ROUTE, "methd": "PUT"}, strict=False)))
    assert outcome.ok, outcome.envelope
    (warning,) = [w for w in outcome.envelope["warnings"] if w["code"] == "W401_UNKNOWN_FIELD_IGNORED"]
    assert "http_webhook.methd" in warning["message"]


def test_a_value_of_the_wrong_type_is_e501(webhook, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(project({"path": ["/hooks/x"]})))
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E501_PARSE_ERROR"
    assert "models[0].http_webhook.path" in error["message"]


def test_the_plugins_own_check_runs_in_validate(webhook, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(project({"path": "/hooks/x", "method": "GET"})))
    assert not outcome.ok
    assert any("http_webhook.method to 'GET'" in e["message"] for e in outcome.envelope["errors"])


def test_show_lists_the_settings(webhook, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("show", "model", "orders_hook", "-p", streamt_project(project(ROUTE)))
    assert outcome.ok, outcome.envelope
    assert outcome.envelope["data"][KIND] == {"path": "/hooks/x", "method": "POST"}
    assert [a["kind"] for a in outcome.envelope["data"]["artifacts"]] == [KIND]


def test_without_the_plugin_the_key_is_unknown(streamt_isolated, streamt_project, streamt_cli) -> None:
    outcome = streamt_cli("validate", "-p", streamt_project(project(ROUTE)))
    messages = [e["message"] for e in outcome.envelope["errors"] if e["code"] == "E501_PARSE_ERROR"]
    assert any("Unknown key 'models[0].http_webhook'" in m for m in messages), messages
