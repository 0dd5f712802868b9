"""Loading a project imports Jinja only when some model's SQL needs more than literal source()/ref() calls."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from streamt_testing import write_project

_PROBE = """
import sys
from streamt.project import load_project
from streamt.validation import validate_project

project = load_project(sys.argv[1])
assert not validate_project(project).errors
print("jinja2" in sys.modules, project.models[0].rendered_sql)
"""

_PROJECT = (
    "project: {name: p}\nruntime:\n  kafka: {bootstrap_servers: 'localhost:9092'}\n"
    "  flink: {default: f, clusters: {f: {rest_url: 'http://f:8081'}}}\n"
)
_SOURCES = "sources:\n  - name: orders\n    topic: shop.orders\n"


def _probe(tmp_path: Path, sql: str) -> str:
    root = write_project(
        tmp_path / "p",
        {
            "stream_project.yml": _PROJECT,
            "sources/s.yml": _SOURCES,
            "models/m.yml": f'models:\n  - name: m\n    materialized: flink\n    sql: "{sql}"\n',
        },
    )
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(root)],
        capture_output=True,
        text=True,
        check=True,
        env={"STREAMT_NO_CACHE": "1", "PATH": "/usr/bin:/bin"},
    )
    return done.stdout.strip()


def test_literal_source_and_ref_calls_do_not_import_jinja(tmp_path: Path) -> None:
    assert _probe(tmp_path, "SELECT * FROM {{ source('orders') }}") == "False SELECT * FROM shop.orders"


def test_other_jinja_is_rendered_in_the_sandbox(tmp_path: Path) -> None:
    sql = "SELECT '{{ config('project.name') }}' AS p FROM {{ source('orders') }}"
    assert _probe(tmp_path, sql) == "True SELECT 'p' AS p FROM shop.orders"
