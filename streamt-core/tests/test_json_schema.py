"""``streamt schema``: JSON Schemas built from the loader's own key trees, model classes and value sets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import jsonschema
import pytest
from streamt.plugins import get_plugins
from streamt.project import lifecycle, sections
from streamt.project import schema as keys
from streamt.project.json_schema import file_schemas
from streamt.sdk import ConfigSection, hookimpl
from streamt_testing import write_distribution

STREAMT = str(Path(sys.executable).with_name("streamt"))


@attrs.frozen(kw_only=True)
class LakeRuntime:
    """The lake runtime.

    * ``warehouse`` — where the lake keeps its tables.
    """

    warehouse: str
    partitions: int = 1
    tables: dict[str, str] = attrs.field(factory=dict)


LAKE = ConfigSection(
    path="runtime.lake",
    model=LakeRuntime,
    keys={"warehouse": None, "partitions": None, "tables": {"*": None}},
    extra="",
)


def _plugin() -> types.ModuleType:
    module = types.ModuleType("lake")
    module.streamt_config_sections = hookimpl(lambda: [LAKE])  # type: ignore[attr-defined]
    return module


def key_tree(node: dict[str, Any]) -> Any:
    """The schema's accepted keys in the loader's key-tree notation (``streamt.project.schema``)."""
    if "properties" in node:
        return {key: key_tree(child) for key, child in node["properties"].items()}
    if "items" in node:
        return [key_tree(node["items"])]
    if isinstance(node.get("additionalProperties"), dict):
        return keys.MapOf(key_tree(node["additionalProperties"]))
    return keys.ANY


def test_the_schema_accepts_exactly_the_loader_keys_plugin_sections_included(streamt_plugin) -> None:
    streamt_plugin(_plugin())
    registry = sections.registry(get_plugins())
    schemas = file_schemas()
    project_keys = lifecycle.accepted_keys(sections.accepted_keys(keys.PROJECT_FILE, registry), lifecycle.registry())
    assert key_tree(schemas["project"]) == project_keys
    assert key_tree(schemas["environment"]) == sections.accepted_keys(keys.ENVIRONMENT_FILE, registry)
    assert key_tree(schemas["declarations"]) == sections.accepted_keys(keys.DECLARATIONS, registry)
    lake = schemas["project"]["properties"]["runtime"]["properties"]["lake"]
    assert lake["properties"]["partitions"] == {"type": "integer", "default": 1}
    assert lake["properties"]["warehouse"]["description"] == "where the lake keeps its tables."
    assert lake["description"].endswith("(plugin: lake)")
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(file_schemas()[name])


STRICT: dict[str, Any] = {
    "apiVersion": "streamt.dev/v1alpha1",
    "project": {"name": "p"},
    "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
}


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"sources": [{"name": "s", "topic": "t", "colums": []}]}, ["sources", 0]),  # an unknown key
        ({"defaults": {"topic": {"partitions": "three"}}}, ["defaults", "topic", "partitions"]),  # a type
        (
            {"sources": [{"name": "s", "topic": "t", "ownership": {"mode": "mine"}}]},
            ["sources", 0, "ownership", "mode"],
        ),
        ({"deployment_state": {"backend": "etcd"}}, ["deployment_state", "backend"]),
    ],
)
def test_what_validate_rejects_the_schema_rejects_at_the_same_place(
    change: dict[str, Any], where: list[Any], streamt_project: Callable[..., Path], streamt_cli
) -> None:
    document = {**STRICT, **change}
    validated = streamt_cli("validate", "-p", streamt_project({"stream_project.yml": document}))
    assert validated.error_codes and set(validated.error_codes) == {"E501_PARSE_ERROR"}, validated.envelope
    errors = list(_validator("project").iter_errors(document))
    assert [list(e.absolute_path) for e in errors] == [where], [e.message for e in errors]


def test_a_placeholder_passes_where_a_value_set_applies_and_validate_agrees(
    streamt_project: Callable[..., Path], streamt_cli
) -> None:
    document = {**STRICT, "deployment_state": {"backend": "${STATE_BACKEND:-local}"}}
    assert not list(_validator("project").iter_errors(document))
    assert streamt_cli("validate", "-p", streamt_project({"stream_project.yml": document})).ok


def test_an_installed_outside_plugin_section_is_in_the_schema(tmp_path: Path) -> None:
    source = '''
import attrs
from streamt import hookimpl
from streamt.capabilities import ConfigSection


@attrs.frozen(kw_only=True)
class Audit:
    """Where the audit trail goes.

    * ``sink_url`` — the endpoint audit records are posted to.
    """

    sink_url: str
    retries: int = 3


@hookimpl
def streamt_config_sections():
    return [ConfigSection(path="runtime.audit", model=Audit, keys={"sink_url": None, "retries": None}, extra="")]
'''
    site = write_distribution(tmp_path / "site", "acme-audit", module="acme_audit", source=source)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([STREAMT, "schema"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    audit = json.loads(done.stdout)["properties"]["runtime"]["properties"]["audit"]
    assert audit["description"] == "Where the audit trail goes. (plugin: acme_audit)"
    assert audit["properties"]["retries"] == {"type": "integer", "default": 3}
    assert audit["properties"]["sink_url"]["description"] == "the endpoint audit records are posted to."
    assert audit["additionalProperties"] is False


def test_out_dir_writes_the_three_schemas_and_file_selects_one(tmp_path: Path, streamt_cli, streamt_cli_text) -> None:
    written = streamt_cli("schema", "--out-dir", tmp_path / "s")
    assert written.ok and written.data["files"] == [
        "project.schema.json",
        "environment.schema.json",
        "declarations.schema.json",
    ]
    printed = streamt_cli_text("schema", "--file", "declarations")
    assert printed.exit_code == 0
    assert (tmp_path / "s" / "declarations.schema.json").read_text() == printed.stdout
    assert json.loads(printed.stdout)["title"].startswith("streamt declaration file")
    assert streamt_cli("-o", "json", "schema").data["schema"]["$schema"].endswith("2020-12/schema")
    both = streamt_cli("schema", "--file", "project", "--out-dir", tmp_path / "x")
    assert both.error_codes == ["E900_USAGE_ERROR"] and not (tmp_path / "x").exists()


def test_init_points_each_file_at_the_schema_it_writes(tmp_path: Path, streamt_cli, streamt_cli_text) -> None:
    root = tmp_path / "p"
    assert streamt_cli("init", "-p", root).ok
    first_lines = {
        "stream_project.yml": "# yaml-language-server: $schema=.schema/project.schema.json",
        "sources/events.yml": "# yaml-language-server: $schema=../.schema/declarations.schema.json",
        "models/events.yml": "# yaml-language-server: $schema=../.schema/declarations.schema.json",
    }
    for relative, line in first_lines.items():
        assert (root / relative).read_text().splitlines()[0] == line
    assert (root / ".schema" / "project.schema.json").read_text() == streamt_cli_text("schema").stdout
    assert streamt_cli("validate", "--strict", "-p", root).ok
