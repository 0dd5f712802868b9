"""Hostile plugins, installed as real distributions beside the workspace's, run by the real `streamt` binary.

Each plugin is a ``.dist-info`` plus module in a directory on ``PYTHONPATH``, found through its entry
point exactly as a pip-installed one. They try to take core's and first-party names (``validate``,
``docs dictionary``, the ``local`` backend, the ``topic`` materialization) and to leak a token
through every back door: an exception message, a syntax error, an exception class name, an
import-time print, a malformed hook, a hook that raises. Core must keep its names and behaviour,
refuse each claim with E906 naming both, and never show the token.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from streamt_testing import write_distribution, write_project

STREAMT = Path(sys.executable).with_name("streamt")
TOKEN = "Tok3nSentinel5ecret"  # an identifier, so that it fits in a class name too
PRINTED = "Pr1ntedSentinel"  # what a plugin prints at import: it may reach stderr, never stdout

CLAIMERS = {
    "hostile-validate": f'''
import click
from streamt.sdk import Result, hookimpl

@click.command("validate")
def fake_validate(**_):
    return Result("validate", data={{"valid": True, "who": "{TOKEN}"}}, text="all valid {TOKEN}")

@hookimpl
def streamt_commands(cli):
    cli.add_command(fake_validate)
    cli.commands["docs"].add_command(click.Command("generate", callback=lambda: None))
''',
    # Registered after postgres (entry points load in name order), so its hook runs before postgres's.
    "zz-hostile-state": f'''
import click
from streamt.sdk import hookimpl

@hookimpl
def streamt_commands(cli):
    cli.commands["state"].add_command(click.Command("init", help="{TOKEN}", callback=lambda: None))
''',
    "hostile-dictionary": f'''
import click
from streamt.sdk import Exporter, Result, hookimpl

def factory():
    return click.Command("dictionary", callback=lambda: Result("docs dictionary", text="{TOKEN}"))

@hookimpl
def streamt_exporters():
    return [Exporter(name="dictionary", group="docs", description="A better dictionary", command_factory=factory)]
''',
    "hostile-kinds": """
from streamt.sdk import ConfigSection, Materialization, StateBackendRegistration, hookimpl

@hookimpl
def streamt_state_backends():
    return [StateBackendRegistration("local", "mine", factory=lambda **_: None)]

@hookimpl
def streamt_materializations():
    return [Materialization("topic", "mine", "hostile")]

@hookimpl
def streamt_config_sections():
    return [
        ConfigSection(path="runtime.kafka", model=dict, keys={"bootstrap_servers": str}, extra="hostile"),
        ConfigSection(path="runtime.flink", model=dict, keys={"rest_url": str}, extra="hostile"),
    ]
""",
}

LEAKERS = {
    "hostile-raises": f"raise RuntimeError('cannot connect token={TOKEN}')\n",
    "hostile-syntax": f"def broken(:\n    '{TOKEN}'\n",
    "hostile-class": f"class {TOKEN}(RuntimeError):\n    pass\n\nraise {TOKEN}('{TOKEN}')\n",
    "hostile-prints": f"import sys\nprint('{PRINTED}')\nsys.stdout.write('{PRINTED}\\n')\n",
    "hostile-malformed": f"""
from streamt.sdk import hookimpl

@hookimpl
def streamt_no_such_hook():
    return ['{TOKEN}']
""",
    "hostile-hook-raises": f"""
from streamt.sdk import hookimpl

class {TOKEN}(ValueError):
    pass

@hookimpl
def streamt_commands(cli):
    print('{PRINTED}')
    raise {TOKEN}('{TOKEN}')
""",
}

DUPLICATE_EXPORTER = """
import click
from streamt.sdk import Exporter, Result, hookimpl

@hookimpl
def streamt_exporters():
    return [Exporter(name="dupe", group="export", description="Dupe", command_factory=lambda: click.Command("dupe"))]
"""

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "shop"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "orders_raw", "topic": "orders.raw"}],
        "models": [
            {"name": "orders_clean", "materialized": "topic", "sql": "SELECT * FROM {{ source('orders_raw') }}"},
            {"name": "orders_bad", "materialized": "topic", "sql": "SELECT * FROM {{ source('missing') }}"},
        ],
    }
}


def _module(dist: str) -> str:
    return dist.replace("-", "_")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hostile-site")
    for dist, source in {**CLAIMERS, **LEAKERS}.items():
        write_distribution(directory, dist, module=_module(dist), source=source)
    for dist in ("hostile-dupe-one", "hostile-dupe-two"):
        write_distribution(directory, dist, module=_module(dist), source=DUPLICATE_EXPORTER)
    return directory


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("hostile-project"), PROJECT)


def streamt(site: Path | None, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMT_LOAD", "STREAMT_DISABLED"))}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return subprocess.run([STREAMT, *map(str, args)], capture_output=True, text=True, env=env, check=False)


def envelope(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(done.stdout)  # exactly one document, or this raises
    return document


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["-o", "json", "--help"],
        ["plugins"],
        ["-o", "json", "plugins"],
        ["validate"],
        ["-o", "json", "validate"],
    ],
    ids=["help", "json-help", "plugins", "json-plugins", "validate", "json-validate"],
)
def test_no_token_reaches_any_output(site: Path, project: Path, argv: list[str]) -> None:
    args = [*argv, "-p", project] if "validate" in argv else argv
    done = streamt(site, *args)
    assert TOKEN not in done.stdout and TOKEN not in done.stderr
    assert PRINTED not in done.stdout, "a plugin's print reached stdout"
    assert PRINTED in done.stderr, "a plugin's print goes to stderr, where people still see it"
    assert "Traceback" not in done.stderr
    if "json" in argv:
        assert envelope(done)["command"]


def test_every_leaker_is_reported_by_name_with_a_builtin_class(site: Path) -> None:
    listing = envelope(streamt(site, "-o", "json", "plugins"))
    failures = {e["plugin"]: e["message"] for e in listing["errors"] if e["code"] == "E901_PLUGIN_LOAD_FAILED"}
    assert failures == {
        "hostile_raises": "Plugin 'hostile_raises' failed to import: RuntimeError",
        "hostile_syntax": "Plugin 'hostile_syntax' failed to import: SyntaxError",
        "hostile_class": "Plugin 'hostile_class' failed to import: RuntimeError",
        "hostile_malformed": "Plugin 'hostile_malformed' registered a malformed hook: unknown hook "
        "'streamt_no_such_hook' (hook names come from streamt.hookspecs)",
        "hostile_hook_raises": "Plugin 'hostile_hook_raises' failed in streamt_commands: ValueError",
    }
    assert "hostile_prints" in {p["name"] for p in listing["data"]["plugins"]}


def test_core_keeps_validate_and_the_claim_is_e906_naming_both(site: Path, project: Path) -> None:
    alone = envelope(streamt(None, "-o", "json", "validate", "-p", project))
    hostile = envelope(streamt(site, "-o", "json", "validate", "-p", project))
    assert alone["status"] == hostile["status"] == "error"
    assert hostile["errors"] == alone["errors"] and hostile["data"] == alone["data"]
    refused = _refusals(hostile["warnings"])
    assert refused[("command", "validate")] == ["streamt-core", "hostile_validate"]
    assert refused[("command", "docs generate")] == ["streamt-core", "hostile_validate"]
    assert "Plugin 'hostile_validate' claims the command 'validate', which 'streamt-core' holds" in _messages(hostile)


def test_a_first_party_command_wins_over_one_a_plugin_mounted_first(site: Path) -> None:
    # zz_hostile_state mounts `state init` before postgres's hook runs (the last registered runs first).
    alone = streamt(None, "state", "init", "--help")
    hostile = streamt(site, "state", "init", "--help")
    assert hostile.stdout == alone.stdout and "PostgreSQL" in hostile.stdout
    listing = envelope(streamt(site, "-o", "json", "plugins"))
    assert _refusals(listing["errors"])[("command", "state init")] == ["postgres", "zz_hostile_state"]
    provides = {p["name"]: p["provides"] for p in listing["data"]["plugins"]}
    assert "state init" in provides["postgres"]["commands"] and provides["zz_hostile_state"]["commands"] == []


def test_core_keeps_docs_dictionary_with_its_options(site: Path) -> None:
    alone = streamt(None, "docs", "dictionary", "--help")
    hostile = streamt(site, "docs", "dictionary", "--help")
    assert hostile.stdout == alone.stdout and "--format [csv|json]" in hostile.stdout
    refused = _refusals(envelope(streamt(site, "-o", "json", "plugins"))["errors"])
    assert refused[("exporter", "docs dictionary")] == ["streamt-core", "hostile_dictionary"]


def test_local_and_topic_stay_with_core_and_streamt_kafka(site: Path, project: Path) -> None:
    listing = envelope(streamt(site, "-o", "json", "plugins", "--all"))
    provides = {p["name"]: p["provides"] for p in listing["data"]["plugins"]}
    assert "local" in provides["streamt.builtin"]["backends"] and "topic" in provides["kafka"]["kinds"]
    assert provides["hostile_kinds"]["kinds"] == [] and provides["hostile_kinds"]["backends"] == []
    refused = _refusals(listing["errors"])
    assert refused[("state_backend", "local")] == ["streamt-core", "hostile_kinds"]
    assert refused[("materialization", "topic")] == ["kafka", "hostile_kinds"]
    assert refused[("config_section", "runtime.kafka")] == ["streamt-core", "hostile_kinds"]
    assert refused[("config_section", "runtime.flink")] == ["flink", "hostile_kinds"]
    flink_sections = ["model.flink", "model.flink_cluster", "runtime.flink", "source.format"]
    assert provides["flink"]["sections"] == flink_sections and provides["hostile_kinds"]["sections"] == []
    topic = {"name": "orders_clean", "materialized": "topic", "topic": {"name": "orders.clean", "partitions": 3}}
    files = {"stream_project.yml": {**PROJECT["stream_project.yml"], "models": [topic]}}
    good = write_project(project.parent / "good", files)
    planned = envelope(streamt(site, "-o", "json", "plan", "--offline", "-p", good))
    assert planned["status"] == "ok", planned["errors"]


def test_two_plugins_claiming_one_exporter_is_e906_for_both_and_neither_mounts(site: Path) -> None:
    refused = envelope(streamt(site, "-o", "json", "export", "dupe"))
    assert [e["code"] for e in refused["errors"]] == ["E906_PLUGIN_CONFLICT"]
    assert refused["errors"][0]["plugins"] == ["hostile_dupe_one", "hostile_dupe_two"]


def test_load_failures_are_warnings_in_text_when_the_command_succeeds(site: Path) -> None:
    done = streamt(site, "--version")
    assert done.returncode == 0
    assert "warning E901_PLUGIN_LOAD_FAILED: Plugin 'hostile_raises'" in done.stderr
    assert "error E901" not in done.stderr


def _refusals(diagnostics: list[dict[str, Any]]) -> dict[tuple[str, str], list[str]]:
    return {(d["family"], d["kind"]): d["plugins"] for d in diagnostics if d["code"] == "E906_PLUGIN_CONFLICT"}


def _messages(document: dict[str, Any]) -> str:
    return "\n".join(d["message"] for d in document["errors"] + document["warnings"])
