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


_OFFLINE_PLAN_PROBE = """
import io, sys
from pathlib import Path
from streamt.cli import run

root = Path(sys.argv[1])
(root / "stream_project.yml").write_text(
    "project: {name: offline}\\n"
    "runtime:\\n"
    "  kafka: {bootstrap_servers: 'localhost:9092'}\\n"
    "  flink: {default: local, clusters: {local: {rest_url: 'http://localhost:8082'}}}\\n"
    "sources:\\n  - {name: events, topic: offline.events.v1, columns: [{name: id, type: STRING}]}\\n"
    "models:\\n"
    "  - name: clean\\n"
    "    materialized: flink\\n"
    "    sql: SELECT id FROM {{ source('events') }}\\n"
)
assert run(["plan", "--offline", "-p", str(root)], io.StringIO(), io.StringIO()) == 0
print(",".join(sorted(m for m in sys.modules if m.split(".")[0] in ("requests", "urllib3", "docker"))))
"""


def test_an_offline_plan_imports_no_http_client(tmp_path: object) -> None:
    """Every installed provider's planner is built for an offline plan; none may pull in an HTTP client
    (`requests` alone was ~9 MiB of a 200-model plan's peak and ~10 % of its CPU)."""
    done = subprocess.run(
        [sys.executable, "-c", _OFFLINE_PLAN_PROBE, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""
