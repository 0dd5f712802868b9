"""The worked examples of docs/plugins.md, installed from their own source trees into fresh venvs.

Each is a real out-of-tree distribution under tests/: installed next to only streamt-core, it is
discovered through its entry point, its kinds are open to validate/plan/apply, and its own test
suite — which runs streamt's conformance kit — passes against the installed copy.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from distributions import KIT

TESTS = Path(__file__).resolve().parents[1]
JSONDIR = TESTS / "example_state_backend"
LAKE = TESTS / "example_provider"
OWNER_RULE = TESTS / "example_validation_rule"
TOPICS_CSV = TESTS / "example_plugin"

PROJECT = """\
project:
  name: shop
runtime:
  kafka:
    bootstrap_servers: localhost:9092
deployment_state:
  backend: jsondir
  namespace: team-data
sources:
  - name: orders_raw
    topic: orders.raw
models:
  - name: orders_lake
    owner: team-data
    materialized: lake_table
    sql: SELECT id, amount FROM {{ source('orders_raw') }}
    columns:
      - {name: id, type: STRING}
      - {name: amount, type: BIGINT}
"""


@pytest.fixture(scope="module")
def venv(make_venv):
    env = make_venv(JSONDIR, LAKE, OWNER_RULE)
    env.install(KIT)  # each example's dev group, from this checkout
    return env


def test_a_new_backend_and_materialization_are_used_by_validate_plan_and_apply(venv, tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(PROJECT)
    listed = venv.envelope("plugins")
    assert sorted(p["name"] for p in listed["data"]["plugins"]) == ["jsondir", "lake", "owner-rule"]

    validated = venv.envelope("validate", "-p", tmp_path)
    assert validated["status"] == "ok", validated["errors"]

    planned = venv.envelope("plan", "-p", tmp_path, cwd=tmp_path)
    assert planned["status"] == "ok", planned["errors"]
    assert [(a["kind"], a["identity"], a["action"]) for a in planned["data"]["actions"]] == [
        ("lake_table", "orders_lake", "create")
    ]
    assert planned["data"]["state"]["backend"] == "jsondir"

    applied = venv.envelope("apply", "-p", tmp_path, cwd=tmp_path)
    assert applied["status"] == "ok", applied["errors"]
    descriptor = json.loads((tmp_path / "lake" / "orders_lake.json").read_text())
    assert descriptor["table"] == "orders_lake" and descriptor["reads"] == ["orders.raw"]
    assert (tmp_path / ".jsondir" / "team-data" / "default" / "state.json").is_file()

    status = venv.envelope("state", "status", "-p", tmp_path)
    assert status["status"] == "ok", status["errors"]
    assert (status["data"]["backend"], status["data"]["serial"]) == ("jsondir", 1)

    again = venv.envelope("plan", "-p", tmp_path, cwd=tmp_path)
    assert [a["action"] for a in again["data"]["actions"]] == ["noop"]


def test_a_typo_in_a_plugin_kind_gets_a_did_you_mean(venv, tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(PROJECT.replace("lake_table", "lake_tabel"))
    refused = venv.envelope("validate", "-p", tmp_path)
    (error,) = refused["errors"]
    assert error["code"] == "E501_PARSE_ERROR" and "'lake_table'" in error["suggestion"]


def test_the_validation_rule_reports_at_the_models_line(venv, tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(PROJECT.replace("    owner: team-data\n", ""))
    refused = venv.envelope("validate", "-p", tmp_path)
    assert [(e["code"], e["location"]) for e in refused["errors"]] == [
        ("E960_MODEL_OWNER_MISSING", "stream_project.yml:13:5")
    ]


@pytest.mark.parametrize("example", [JSONDIR, LAKE, OWNER_RULE], ids=lambda p: p.name)
def test_each_example_passes_its_own_suite_against_the_installed_copy(venv, example: Path, tmp_path: Path) -> None:
    # Copied away from the checkout, so that only the installed distribution can be imported
    # and the plugin under test is both pip-installed and registered by its tests.
    shutil.copytree(example / "tests", tmp_path / "tests")
    done = venv.pytest("tests", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
