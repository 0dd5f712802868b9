"""Shared fixtures for the DSL tests: a small project that validates with no finding, and a CLI runner.

Tests mutate a fresh copy of ``base_files`` so each case shows exactly which edit triggers a code.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import attrs
import pytest

PROJECT = """\
apiVersion: streamt.dev/v1alpha1
project: {name: demo}
runtime:
  kafka: {bootstrap_servers: 'localhost:9092'}
  flink: {clusters: {local: {rest_url: 'http://localhost:8081', sql_gateway_url: 'http://localhost:8083'}}}
"""

SOURCES = """\
sources:
  - name: events
    topic: events.v1
    columns:
      - {name: id, type: STRING}
      - {name: amount, type: INT}
"""

MODELS = """\
models:
  - name: clean
    materialized: flink
    sql: SELECT id, amount FROM {{ source("events") }}
"""


@pytest.fixture
def base_files() -> dict[str, str]:
    """A project with one source and one Flink model: valid, no warnings, no notices."""
    return {"stream_project.yml": PROJECT, "sources/events.yml": SOURCES, "models/clean.yml": MODELS}


@attrs.frozen
class Run:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def envelope(self) -> dict[str, Any]:
        return json.loads(self.stdout)  # one document, nothing else: json.loads refuses trailing text

    @property
    def codes(self) -> list[str]:
        envelope = self.envelope
        return [d["code"] for d in envelope["errors"] + envelope["warnings"]]

    @property
    def text(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def cli() -> Callable[..., Run]:
    """``cli("json", "validate", "-p", path)``: run in-process in the given output mode."""
    from streamt.cli import run

    def invoke(mode: str, *args: Any) -> Run:
        out, err = io.StringIO(), io.StringIO()
        code = run(["-o", mode, *map(str, args)], stdout=out, stderr=err)
        return Run(code, out.getvalue(), err.getvalue())

    return invoke
