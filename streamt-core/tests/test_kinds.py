"""Open kinds and the one precedence rule (streamt.kinds), through the CLI."""

from __future__ import annotations

import types
from typing import Any

from streamt import hookimpl
from streamt.sdk import Exporter, Materialization, StateBackendRegistration

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "shop"},
        "runtime": {
            "kafka": {"bootstrap_servers": "localhost:9092"},
            "flink": {"default": "main", "clusters": {"main": {"rest_url": "http://localhost:8081"}}},
        },
        "sources": [{"name": "raw", "topic": "raw"}],
        "models": [{"name": "clean", "materialized": "flink", "sql": "SELECT * FROM {{ source('raw') }}"}],
    }
}


def _plugin(name: str, **hooks: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    for hook, function in hooks.items():
        setattr(module, hook, hookimpl(function))
    return module


def _with(project: dict[str, Any], **changes: Any) -> dict[str, Any]:
    files = {**project, "stream_project.yml": {**project["stream_project.yml"], **changes}}
    return files


class Observer:
    kinds = ("lake_table",)

    def observe(self, artifacts: Any) -> dict[str, Any]:
        return {}


def test_a_kind_two_plugins_claim_is_e906_naming_both_and_used_by_neither(
    streamt_plugin, streamt_project, streamt_cli
) -> None:
    from streamt.kinds import observers
    from streamt.plugins import get_plugins

    streamt_plugin(_plugin("lake_one", streamt_observers=lambda runtime: [Observer()]), isolated=True)
    streamt_plugin(_plugin("lake_two", streamt_observers=lambda runtime: [Observer()]))
    table = observers(get_plugins(), runtime=None)
    assert "lake_table" not in table and table.conflicts == {"lake_table": ("lake_one", "lake_two")}
    listed = streamt_cli("plugins")
    assert listed.error_codes == ["E906_PLUGIN_CONFLICT"]
    (error,) = listed.envelope["errors"]
    assert error["plugins"] == ["lake_one", "lake_two"] and "'lake_one' and 'lake_two'" in error["message"]


def test_an_implementation_replaces_a_placeholder_without_a_conflict(streamt_plugin) -> None:
    from streamt.kinds import materializations
    from streamt.plugins import get_plugins

    placeholder = Materialization("lake", "planned", "lake", implemented=False)
    real = Materialization("lake", "real", "lake")
    streamt_plugin(_plugin("planned", streamt_materializations=lambda: [placeholder]), isolated=True)
    streamt_plugin(_plugin("real", streamt_materializations=lambda: [real]))
    table = materializations(get_plugins())
    assert table["lake"] is real and table.providers["lake"] == "real" and not table.conflicts


def test_a_plugin_backend_is_valid_and_listed_among_the_valid_ones(
    streamt_plugin, streamt_project, streamt_cli
) -> None:
    backend = StateBackendRegistration("jsondir", "files", factory=lambda **_: None)
    streamt_plugin(_plugin("jsondir", streamt_state_backends=lambda: [backend]))
    assert streamt_cli("validate", "-p", streamt_project(_with(PROJECT, deployment_state={"backend": "jsondir"}))).ok
    refused = streamt_cli("validate", "-p", streamt_project(_with(PROJECT, deployment_state={"backend": "jsondri"})))
    assert refused.error_codes == ["E501_PARSE_ERROR"]
    assert refused.envelope["errors"][0]["message"].endswith("Valid: local, postgres, jsondir")


def test_a_known_materialization_without_its_plugin_names_the_extra(
    streamt_isolated, streamt_project, streamt_cli
) -> None:
    project = streamt_project(PROJECT)
    # validate says it as compile does (issue 31: not one step too late): the same E903 and install command.
    for command in (("validate",), ("compile", "--dry-run")):
        refused = streamt_cli(*command, "-p", project)
        assert refused.error_codes == ["E903_PLUGIN_REQUIRED"], (command, refused.envelope)
        assert refused.envelope["errors"][0]["suggestion"] == "Install it with: pip install 'streamt[flink]'"


def test_an_unknown_materialization_gets_a_did_you_mean(streamt_project, streamt_cli) -> None:
    files = {**PROJECT, "stream_project.yml": {**PROJECT["stream_project.yml"]}}
    files["stream_project.yml"]["models"] = [{"name": "clean", "materialized": "flnk", "sql": "SELECT 1 FROM x"}]
    refused = streamt_cli("validate", "-p", streamt_project(files))
    assert "E501_PARSE_ERROR" in refused.error_codes
    error = next(e for e in refused.envelope["errors"] if "materialized" in e["message"])
    assert error["suggestion"] == "Did you mean 'flink'?"


def test_a_missing_expected_command_names_its_extra(streamt_isolated, streamt_cli) -> None:
    outcome = streamt_cli("export", "strimzi")
    assert outcome.error_codes == ["E903_PLUGIN_REQUIRED"]
    assert outcome.envelope["errors"][0]["suggestion"] == "Install it with: pip install 'streamt[exporters]'"


def test_streamt_plugins_reports_a_conflict_on_its_own(streamt_plugin, streamt_cli) -> None:
    lake = Materialization("lake", "one", "lake")
    streamt_plugin(_plugin("lake_a", streamt_materializations=lambda: [lake]), isolated=True)
    streamt_plugin(_plugin("lake_b", streamt_materializations=lambda: [lake]))
    listed = streamt_cli("plugins")
    assert listed.error_codes == ["E906_PLUGIN_CONFLICT"]
    assert listed.envelope["errors"][0]["family"] == "materialization"


def test_an_exporter_two_plugins_offer_is_e906_and_mounted_for_neither(streamt_plugin, streamt_cli) -> None:
    import click

    def factory() -> click.Command:
        return click.Command("csv", callback=lambda: None)

    exporter = Exporter(name="csv", group="export", description="CSV", command_factory=factory)
    streamt_plugin(_plugin("csv_one", streamt_exporters=lambda: [exporter]), isolated=True)
    streamt_plugin(_plugin("csv_two", streamt_exporters=lambda: [exporter]))
    refused = streamt_cli("export", "csv")
    assert refused.error_codes == ["E906_PLUGIN_CONFLICT"]
    assert refused.envelope["errors"][0]["plugins"] == ["csv_one", "csv_two"]
    assert "'csv_one' and 'csv_two'" in refused.envelope["errors"][0]["message"]


def test_a_command_two_plugins_mount_stays_with_the_first_and_the_other_is_e906(streamt_plugin, streamt_cli) -> None:
    import click
    from streamt.result import Result

    def mounting(greeting: str) -> Any:
        def hook(cli: Any) -> None:
            cli.add_command(click.Command("hello", callback=lambda: Result("hello", data={"from": greeting})))

        return hook

    streamt_plugin(_plugin("hello_one", streamt_commands=mounting("one")), isolated=True)
    streamt_plugin(_plugin("hello_two", streamt_commands=mounting("two")))
    outcome = streamt_cli("hello")
    assert outcome.ok and outcome.data == {"from": "two"}  # the last registered plugin's hook runs first
    (refusal,) = [w for w in outcome.envelope["warnings"] if w["code"] == "E906_PLUGIN_CONFLICT"]
    assert (refusal["plugins"], refusal["kind"]) == (["hello_two", "hello_one"], "hello")


def test_an_exporter_whose_name_is_no_command_name_is_e901_and_not_mounted(streamt_plugin, streamt_cli) -> None:
    import click

    exporter = Exporter(
        name="csv\x1b[2J", group="export", description="CSV", command_factory=lambda: click.Command("x")
    )
    streamt_plugin(_plugin("escapes", streamt_exporters=lambda: [exporter]), isolated=True)
    outcome = streamt_cli("export", "--help")
    assert "\x1b" not in outcome.stdout + outcome.data["help"]
    (warning,) = [w for w in outcome.envelope["warnings"] if w.get("plugin") == "escapes"]
    assert warning["message"] == "Plugin 'escapes' offers an exporter whose name is no command name: export csv??2J"


def test_an_artifact_kind_a_first_party_plugin_serves_stays_with_it(streamt_plugin) -> None:
    from streamt.kinds import observers
    from streamt.plugins import get_plugins

    class TopicObserver:
        kinds = ("topic",)

    streamt_plugin(_plugin("topic_thief", streamt_observers=lambda runtime: [TopicObserver()]))
    plugins = get_plugins()
    table = observers(plugins, runtime=None)
    assert table.providers["topic"] == "kafka" and not isinstance(table["topic"], TopicObserver)
    refused = [d for d in plugins.diagnostics if d.details.get("plugin") == "topic_thief"]
    assert [(d.code.code, d.details["plugins"]) for d in refused] == [
        ("E906_PLUGIN_CONFLICT", ["kafka", "topic_thief"])
    ]
