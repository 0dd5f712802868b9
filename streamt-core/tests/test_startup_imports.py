"""What ``streamt --help`` imports with every installed plugin: only what building the listing needs.

Time is measured in ``bench/startup_bench.py``; this holds the reasons it stays low (issue 20): no
``attrs`` (the value types every start imports are ``streamt.values`` classes), none of core's
project, compile or command modules, no ``json`` (text output does not need it), and no plugin module
that defines or imports click commands.
"""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import io, sys
import click
from streamt.cli import run
from streamt.entry_points import find_entry_points

assert run(["--help"], io.StringIO(), io.StringIO()) == 0
packages = sorted({ep.value.split(":")[0].split(".")[0] for ep in find_entry_points("streamt")})
loaded = sorted(sys.modules)
with_commands = [
    name
    for name in loaded
    if name.split(".")[0] in packages
    and any(value is click or isinstance(value, click.Command) for value in vars(sys.modules[name]).values())
]
import json  # after the census: the probe's own output must not count
print(json.dumps({"loaded": loaded, "packages": packages, "with_commands": with_commands}))
"""

# Modules whose import --help must never pay for.
_NEVER = (
    "attr",
    "attrs",
    "cattrs",
    "pathlib",
    "yaml",
    "jinja2",
    "json",
    "streamt.project",
    "streamt.compile",
    "streamt.commands",
)


def _probe() -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True)
    result: dict[str, list[str]] = json.loads(done.stdout)
    return result


def test_help_imports_no_value_library_no_project_code_and_no_command_module() -> None:
    probe = _probe()
    assert probe["packages"], "the workspace plugins are installed"
    heavy = [m for m in probe["loaded"] if any(m == n or m.startswith(n + ".") for n in _NEVER)]
    assert heavy == []
    assert probe["with_commands"] == [], "a plugin module imported at start-up builds click commands"
