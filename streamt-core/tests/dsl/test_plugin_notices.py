"""Plugins return ``Notice`` objects from ``streamt_validate`` next to diagnostics; both reach the report."""

from __future__ import annotations

import types
from typing import Any

from streamt import hookimpl
from streamt.errors import Codes, Diagnostic
from streamt.project import Notice


def _plugin(*items: Any) -> types.ModuleType:
    module = types.ModuleType("notice_plugin")

    def streamt_validate(project: Any, env: str) -> list[Any]:
        return list(items)

    module.streamt_validate = hookimpl(streamt_validate)  # type: ignore[attr-defined]
    return module


NOTICE = Notice(code="PLUGIN_ADVICE", message="Model 'clean' could use a bigger parallelism", subject="clean")


def test_plugin_notice_is_reported_in_json(streamt_project, streamt_cli, streamt_plugin, base_files) -> None:
    streamt_plugin(_plugin(NOTICE))
    outcome = streamt_cli("validate", "-p", streamt_project(base_files))
    assert outcome.ok
    assert outcome.data["notices"] == [NOTICE.to_json()]
    assert outcome.envelope["warnings"] == [] and outcome.envelope["errors"] == []


def test_plugin_notice_never_fails_strict(streamt_project, streamt_cli, streamt_plugin, base_files) -> None:
    streamt_plugin(_plugin(NOTICE))
    outcome = streamt_cli("validate", "--strict", "-p", streamt_project(base_files))
    assert outcome.exit_code == 0 and outcome.data["valid"] is True
    assert [n["code"] for n in outcome.data["notices"]] == ["PLUGIN_ADVICE"]


def test_plugin_notice_shown_in_text(streamt_project, streamt_plugin, base_files, cli) -> None:
    streamt_plugin(_plugin(NOTICE))
    run = cli("text", "validate", "-p", streamt_project(base_files))
    assert run.exit_code == 0
    assert "PLUGIN_ADVICE: Model 'clean' could use a bigger parallelism" in run.stdout


def test_plugin_diagnostics_and_notices_are_both_collected(
    streamt_project, streamt_cli, streamt_plugin, base_files
) -> None:
    warning = Diagnostic(Codes.W101_STATE_TTL_RECOMMENDED, "Model 'clean' keeps state", "Set a TTL.", None)
    streamt_plugin(_plugin(warning, NOTICE, "not a finding"))  # anything else is ignored
    outcome = streamt_cli("validate", "-p", streamt_project(base_files))
    assert outcome.warning_codes == ["W101_STATE_TTL_RECOMMENDED"]
    assert [n["code"] for n in outcome.data["notices"]] == ["PLUGIN_ADVICE"]
    strict = streamt_cli("validate", "--strict", "-p", streamt_project(base_files))
    assert strict.error_codes == ["W101_STATE_TTL_RECOMMENDED"]  # the warning fails --strict, the notice does not
    assert [n["code"] for n in strict.data["notices"]] == ["PLUGIN_ADVICE"]


def test_plugin_repeat_of_a_core_notice_is_reported_once(
    streamt_project, streamt_cli, streamt_plugin, base_files
) -> None:
    files = {**base_files, "exposures/app.yml": "exposures:\n  - {name: app, type: application, sla: {p99_ms: 5}}\n"}
    repeat = Notice(code="SLA_NOT_ENFORCED", message="Exposure 'app' has an SLA nobody enforces", subject="app")
    streamt_plugin(_plugin(repeat))
    outcome = streamt_cli("validate", "-p", streamt_project(files))
    assert [n["message"] for n in outcome.data["notices"]] == ["SLA of exposure 'app' is metadata only"]
