"""The plugin mounts ``impact`` lazily and registers its own error code (core names the extra when it is missing:
streamt-core/tests/test_plugins_cli.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys

from streamt.errors import Codes
from streamt.plugins import get_plugins
from streamt_impact import plugin


def test_the_listed_help_is_the_commands_own() -> None:
    path, help_text = plugin.COMMAND
    module, _, attribute = path.partition(":")
    command = getattr(importlib.import_module(module), attribute)
    assert command.name == "impact" and (command.help or "").strip() == help_text


def test_help_lists_impact_and_imports_only_the_plugin_module() -> None:
    code = (
        "import io, sys\n"
        "from streamt.cli import run\n"
        "out = io.StringIO()\n"
        "run(['--help'], out, io.StringIO())\n"
        "print(out.getvalue())\n"
        "print(sorted(m for m in sys.modules if m.startswith('streamt_impact')))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    help_page, _, loaded = shown.rstrip("\n").rpartition("\n")
    assert "  impact    Explain the downstream impact of changes between Git refs.\n" in help_page
    assert "(plugin not installed)" not in help_page
    assert loaded == "['streamt_impact', 'streamt_impact.codes', 'streamt_impact.plugin']"


def test_e510_is_registered_by_streamt_impact() -> None:
    get_plugins()
    assert Codes.E510_GIT_READ_FAILED.owner == "streamt-impact"
    assert Codes.E510_GIT_READ_FAILED.meaning == "A Git ref or the project files at it could not be read safely"
