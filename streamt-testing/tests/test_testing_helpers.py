"""streamt_testing for plugin authors: text-mode runs, isolation, a pip-installed plugin under test, -m streamt."""

from __future__ import annotations

import subprocess
import sys
import types

from streamt import hookimpl
from streamt.plugins import get_plugins


def test_text_mode_runner_shows_what_people_see(streamt_cli_text) -> None:
    outcome = streamt_cli_text("validate", "-p", "/does/not/exist")
    assert outcome.exit_code == 1
    assert "Project could not be loaded" in outcome.stdout and "E501_PARSE_ERROR" in outcome.stderr


def test_isolated_switches_every_installed_plugin_off_and_restores_them(streamt_plugin, streamt_cli) -> None:
    assert len(get_plugins().infos) > 1  # the workspace plugins are installed
    streamt_plugin(types.ModuleType("lonely"), isolated=True)
    assert set(get_plugins().infos) == {"streamt.builtin", "lonely"}
    assert [p["name"] for p in streamt_cli("plugins").data["plugins"]] == ["lonely"]


def test_the_installed_set_is_back_after_an_isolated_test() -> None:
    names = set(get_plugins().infos)
    assert "lonely" not in names and "streamt.builtin" in names


def test_registering_an_already_registered_plugin_is_fine(streamt_plugin) -> None:
    # A plugin under test that is also pip-installed: its entry point loaded the same module.
    module = types.ModuleType("twice")
    module.streamt_planners = hookimpl(lambda: [])  # type: ignore[attr-defined]
    streamt_plugin(module, name="twice")
    streamt_plugin(module, name="twice-again")
    assert get_plugins().manager.is_registered(module)


def test_python_dash_m_streamt_is_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "streamt", "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("streamt ")
