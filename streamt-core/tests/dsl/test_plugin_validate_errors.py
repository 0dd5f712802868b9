"""A ``streamt_validate`` hook that raises is that plugin's finding; the other plugins' findings still appear."""

from __future__ import annotations

import types
from typing import Any

from streamt import hookimpl
from streamt.errors import Codes, Diagnostic, StreamtError


def _plugin(name: str, validate: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.streamt_validate = hookimpl(validate)  # type: ignore[attr-defined]
    return module


def _raises(project: Any, env: str) -> list[Any]:
    raise RuntimeError("validator crashed token=hunter2")


def _warns(project: Any) -> list[Any]:
    # The model's location from project.locations becomes file:line:col in the report.
    where = project.locations.get(("model", "clean"))
    return [Diagnostic(Codes.W901_PLUGIN_WARNING, "clean looks odd", "Have a look.", where)]


def _refuses(project: Any) -> list[Any]:
    raise StreamtError(Codes.E602_GOVERNANCE_RULE_VIOLATION, "clean breaks the house rule", "Rename it.")


def test_a_raising_hook_is_reported_as_that_plugins_error_and_the_others_still_report(
    streamt_project, streamt_cli, streamt_plugin, base_files
) -> None:
    streamt_plugin(_plugin("crashing_rule", _raises))
    streamt_plugin(_plugin("odd_rule", _warns))
    outcome = streamt_cli("validate", "-p", streamt_project(base_files))
    assert outcome.error_codes == ["E999_INTERNAL_ERROR"]
    (error,) = outcome.envelope["errors"]
    assert error["plugin"] == "crashing_rule" and "RuntimeError" in error["message"]
    assert "hunter2" not in outcome.stdout
    (warning,) = [w for w in outcome.envelope["warnings"] if w["code"] == "W901_PLUGIN_WARNING"]
    assert warning["location"].startswith("models/clean.yml:") and warning["location"].count(":") == 2


def test_a_hook_raising_streamt_error_reports_its_diagnostics(
    streamt_project, streamt_cli, streamt_plugin, base_files
) -> None:
    streamt_plugin(_plugin("house_rule", _refuses))
    outcome = streamt_cli("validate", "-p", streamt_project(base_files))
    assert outcome.error_codes == ["E602_GOVERNANCE_RULE_VIOLATION"]
    assert outcome.envelope["errors"][0]["message"] == "clean breaks the house rule"
