"""The plugin mounts its commands lazily: ``streamt --help`` imports none of its command modules."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
from streamt_kstreams import plugin

COMMANDS = {**plugin._RUNTIME_COMMANDS, **plugin._STATE_COMMANDS}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listed_help_is_the_commands_own(name: str) -> None:
    path, help_text = COMMANDS[name]
    module, _, attribute = path.partition(":")
    command = getattr(importlib.import_module(module), attribute)
    assert command.name == name and (command.help or "").strip() == help_text


def test_help_imports_no_command_module() -> None:
    code = (
        "import sys\n"
        "from streamt.cli import run\n"
        "import io\n"
        "run(['--help'], io.StringIO(), io.StringIO())\n"
        "print(sorted(m for m in sys.modules if m.startswith('streamt_kstreams')))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "streamt_kstreams.state_commands" not in loaded and "streamt_kstreams.commands" not in loaded
    assert "streamt_kstreams.plugin" in loaded
