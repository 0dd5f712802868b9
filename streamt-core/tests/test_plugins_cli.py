"""Plugins as the CLI sees them: `streamt plugins`, runtime-mounted commands, missing and broken plugins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import click
import pytest
from streamt import hookimpl
from streamt.capabilities import Exporter
from streamt.result import Result
from streamt_testing import write_distribution

STREAMT = Path(sys.executable).with_name("streamt")


def make_plugin(name: str, **hooks: object) -> types.ModuleType:
    module = types.ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, hookimpl(function))
    return module


@click.command("hello")
@click.option("--name", default="world")
def hello(name: str) -> Result:
    return Result("hello", data={"greeting": f"hello {name}"}, text=f"hello {name}")


def test_plugins_lists_every_installed_workspace_plugin_with_version_and_hooks(streamt_cli) -> None:
    from importlib import metadata

    outcome = streamt_cli("plugins")
    assert outcome.ok
    listed = {p["name"]: p for p in outcome.data["plugins"]}
    installed = {ep.name: ep.dist for ep in metadata.entry_points(group="streamt")}
    assert set(listed) == set(installed)
    assert outcome.data["count"] == len(installed)
    for name, dist in installed.items():
        assert dist is not None
        assert (listed[name]["distribution"], listed[name]["version"]) == (dist.name, dist.version)
        assert listed[name]["hooks"], f"{name} implements no hook"
        assert all(hook.startswith("streamt_") for hook in listed[name]["hooks"])


def test_plugins_all_includes_core_itself(streamt_cli) -> None:
    builtin = [p for p in streamt_cli("plugins", "--all").data["plugins"] if p["builtin"]]
    assert [p["distribution"] for p in builtin] == ["streamt-core"]
    assert "streamt_commands" in builtin[0]["hooks"]


def test_plugins_text_names_distribution_version_and_hooks() -> None:
    text = subprocess.run([STREAMT, "plugins"], capture_output=True, text=True, check=False)
    as_json = subprocess.run([STREAMT, "-o", "json", "plugins"], capture_output=True, text=True, check=False)
    assert text.returncode == 0, text.stderr
    plugins = json.loads(as_json.stdout)["data"]["plugins"]
    assert plugins
    for plugin in plugins:
        block = (
            f"{plugin['name']}  {plugin['distribution']} {plugin['version']}\n    hooks: {', '.join(plugin['hooks'])}\n"
        )
        assert block in text.stdout


def test_a_plugin_command_is_mounted_at_runtime(streamt_cli, streamt_plugin) -> None:
    assert streamt_cli("hello").error_codes == ["E900_USAGE_ERROR"]
    streamt_plugin(make_plugin("greeter", streamt_commands=lambda cli: cli.add_command(hello)))
    outcome = streamt_cli("hello", "--name", "kafka")
    assert outcome.ok and outcome.data == {"greeting": "hello kafka"}


def test_a_registered_plugin_is_gone_after_its_test(streamt_cli) -> None:
    # Pairs with the test above: the temporary registration did not leak.
    assert streamt_cli("hello").error_codes == ["E900_USAGE_ERROR"]


def test_an_exporter_is_mounted_under_its_group(streamt_cli, streamt_plugin) -> None:
    exporter = Exporter("hello", "docs", "Say hello.", command_factory=lambda: hello)
    streamt_plugin(make_plugin("hello_exporter", streamt_exporters=lambda: [exporter]))
    assert streamt_cli("docs", "hello").data == {"greeting": "hello world"}


def test_a_plugin_whose_hook_raises_is_reported_and_the_rest_of_the_cli_works(streamt_cli, streamt_plugin) -> None:
    def broken(cli: click.Group) -> None:
        raise RuntimeError("no commands today")

    streamt_plugin(make_plugin("grumpy", streamt_commands=broken))
    outcome = streamt_cli("plugins")
    assert outcome.error_codes == ["E901_PLUGIN_LOAD_FAILED"]
    assert outcome.envelope["errors"][0]["plugin"] == "grumpy"
    message = outcome.envelope["errors"][0]["message"]
    assert "RuntimeError" in message and "no commands today" not in message  # class only, like E999
    # Every other command still runs, carrying the broken plugin as a warning.
    other = streamt_cli("--version")
    assert other.ok and other.warning_codes == ["E901_PLUGIN_LOAD_FAILED"]


def test_an_exporter_factory_that_raises_is_reported(streamt_cli, streamt_plugin) -> None:
    def factory() -> click.Command:
        raise ValueError("bad options")

    exporter = Exporter("bad", "export", "Broken.", command_factory=factory)
    streamt_plugin(make_plugin("bad_exporter", streamt_exporters=lambda: [exporter]))
    # Exporters mount lazily: listing them calls no factory, running the broken one is E901 naming the plugin.
    assert streamt_cli("plugins").ok
    outcome = streamt_cli("export", "bad")
    assert outcome.error_codes == ["E901_PLUGIN_LOAD_FAILED"]
    assert [e["plugin"] for e in outcome.envelope["errors"]] == ["bad_exporter"]
    assert "bad options" not in outcome.stdout


def test_a_crash_inside_a_plugin_command_is_e999_naming_the_plugin(streamt_cli, streamt_plugin) -> None:
    # The plugin's code must live in the plugin's module for the traceback to name it.
    crasher = types.ModuleType("crasher")
    source = """
import click
from streamt import hookimpl

@click.command("crash")
def crash():
    raise KeyError("secret-token-123")

@hookimpl
def streamt_commands(cli):
    cli.add_command(crash)
"""
    exec(compile(source, "crasher.py", "exec"), crasher.__dict__)
    streamt_plugin(crasher)
    outcome = streamt_cli("crash")
    assert outcome.error_codes == ["E999_INTERNAL_ERROR"]
    assert outcome.envelope["errors"][0]["plugin"] == "crasher"
    assert "secret-token-123" not in outcome.stdout + outcome.stderr


@pytest.mark.parametrize(
    ("argv", "extra"),
    [
        (["export", "strimzi"], "exporters"),
        (["docs", "odcs"], "exporters"),
        (["state", "init"], "postgres"),
        (["runtime", "build"], "kstreams"),
    ],
)
def test_a_command_of_a_missing_plugin_names_the_extra_to_install(streamt_cli, argv: list[str], extra: str) -> None:
    outcome = streamt_cli(*argv, env={"STREAMT_LOAD_PLUGINS": ""})
    assert outcome.error_codes == ["E903_PLUGIN_REQUIRED"]
    assert f"pip install 'streamt[{extra}]'" in outcome.envelope["errors"][0]["suggestion"]


def test_the_allow_list_pins_what_runs(streamt_cli) -> None:
    outcome = streamt_cli("plugins", env={"STREAMT_LOAD_PLUGINS": "kafka,streamt-exporter-odcs"})
    assert sorted(p["name"] for p in outcome.data["plugins"]) == ["kafka", "odcs"]
    disabled = streamt_cli("plugins", env={"STREAMT_LOAD_PLUGINS": None, "STREAMT_DISABLED_PLUGINS": "kafka"})
    assert "kafka" not in {p["name"] for p in disabled.data["plugins"]} and disabled.data["count"] > 0


def test_a_broken_installed_plugin_in_a_real_process(tmp_path: Path) -> None:
    """The acceptance case: the real `streamt` binary with a plugin that raises on import."""
    site = tmp_path / "site"
    write_distribution(site, "streamt-broken", module="streamt_broken", source="import no_such_module_anywhere\n")
    env = {**os.environ, "PYTHONPATH": str(site)}
    listing = subprocess.run([STREAMT, "-o", "json", "plugins"], capture_output=True, text=True, env=env, check=False)
    envelope = json.loads(listing.stdout)
    assert listing.returncode == 1
    assert [(e["code"], e["plugin"]) for e in envelope["errors"]] == [("E901_PLUGIN_LOAD_FAILED", "streamt_broken")]
    assert envelope["data"]["count"] >= 12, "the other plugins are still listed"
    other = subprocess.run([STREAMT, "-o", "json", "--version"], capture_output=True, text=True, env=env, check=False)
    assert other.returncode == 0
    assert [w["plugin"] for w in json.loads(other.stdout)["warnings"]] == ["streamt_broken"]
    assert "Traceback" not in listing.stderr + other.stderr
