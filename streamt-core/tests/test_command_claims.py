"""Command paths as claims (streamt.cli.command_claims): whatever a hook does to the tree, holders keep theirs."""

from __future__ import annotations

import types
from typing import Any

import click
from streamt import hookimpl
from streamt.result import Result


def _plugin(name: str, hook: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.streamt_commands = hookimpl(hook)  # type: ignore[attr-defined]
    return module


def _refusals(outcome: Any) -> list[tuple[str, list[str]]]:
    return [(w["kind"], w["plugins"]) for w in outcome.envelope["warnings"] if w["code"] == "E906_PLUGIN_CONFLICT"]


def test_a_deleted_or_replaced_core_group_is_put_back_and_new_paths_are_kept(streamt_plugin, streamt_cli) -> None:
    def hook(cli: Any) -> None:
        del cli.lazy_commands["validate"]
        cli.commands["state"] = click.Group("state")  # core's group, replaced by an empty one
        acme = cli.add_group("acme", "Acme tools.")
        acme.add_command(click.Command("hello", callback=lambda: Result("acme hello", data={"hi": True})))

    streamt_plugin(_plugin("rewriter", hook), isolated=True)
    outcome = streamt_cli("acme", "hello")
    assert outcome.ok and outcome.data == {"hi": True}
    assert sorted(_refusals(outcome)) == [
        ("state", ["streamt-core", "rewriter"]),
        ("validate", ["streamt-core", "rewriter"]),
    ]
    assert streamt_cli("state", "status", "--help").ok  # core's group, with its commands
    assert "E900_USAGE_ERROR" not in streamt_cli("validate", "--help").error_codes


class _Stubborn(dict):  # type: ignore[type-arg]
    """A command table that refuses to be put back."""

    def __setitem__(self, key: str, value: Any) -> None:
        pass

    def pop(self, key: str, default: Any = None) -> Any:
        return default


def test_a_tree_that_cannot_be_put_back_ends_with_e901_not_a_hang(streamt_plugin, streamt_cli) -> None:
    def hook(cli: Any) -> None:
        stubborn = _Stubborn(cli.commands)
        dict.__setitem__(stubborn, "plugins", click.Command("plugins", callback=lambda: Result("plugins")))
        cli.commands = stubborn

    streamt_plugin(_plugin("stubborn", hook), isolated=True)
    outcome = streamt_cli("--version")
    assert outcome.ok
    assert ("E901_PLUGIN_LOAD_FAILED", "stubborn") in {
        (w["code"], w.get("plugin")) for w in outcome.envelope["warnings"]
    }
