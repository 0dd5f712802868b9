"""Registered artifact kinds: layout, order and dispatch read the registry; conflicts are E906."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from streamt import hookimpl
from streamt.artifact_kinds import artifact_kinds, produces
from streamt.plugins import get_plugins
from streamt.sdk import Artifact, ArtifactKind, Materialization, Model

PROJECT = {
    "stream_project.yml": {
        "project": {"name": "p"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "raw", "topic": "raw.v1"}],
        "models": [
            {"name": "kept", "materialized": "vault", "sql": "SELECT id FROM {{ source('raw') }}"},
            {"name": "other", "materialized": "lake", "sql": "SELECT id FROM {{ source('raw') }}"},
        ],
    }
}


class Vault:
    """Registers ``vault_entry`` for ``materialized: vault`` and records what core sends it."""

    def __init__(self, **registration: Any) -> None:
        self.registration = {"directory": "vault", "manifest_key": "vault_entries", "rank": 45, **registration}
        self.seen: list[str] = []

    @hookimpl
    def streamt_materializations(self) -> list[Materialization]:
        return [Materialization(name=name, description="fake", extra="vault") for name in ("vault", "lake")]

    @hookimpl
    def streamt_artifact_kinds(self) -> list[ArtifactKind]:
        return [ArtifactKind(name="vault_entry", materializations=("vault",), **self.registration)]

    @hookimpl
    def streamt_compile(self, declaration: Any) -> list[Artifact]:
        self.seen.append(declaration.name)
        return [Artifact("vault_entry", declaration.name, f"entry.{declaration.name}", {"n": declaration.name})]


class KindOnly(Vault):
    """A second plugin registering the same kind (and no materialization, so that only the kind conflicts)."""

    @hookimpl
    def streamt_materializations(self) -> list[Materialization]:
        return []


class Broadcast:
    """Implements ``streamt_compile`` but registers no kind: it still sees every declaration."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def streamt_compile(self, declaration: Any) -> list[Artifact]:
        self.seen.append(declaration.name)
        return []


def compiled(cli: Any, project: Path) -> dict[str, Any]:
    outcome = cli("compile", "--project-dir", project, "--output-dir", project / "out")
    assert outcome.ok, outcome.envelope
    return outcome.envelope["data"]


def test_core_sends_a_declaration_only_to_the_plugin_whose_kind_it_produces(
    streamt_plugin: Any, streamt_project: Any, streamt_cli: Any
) -> None:
    vault, broadcast = Vault(), Broadcast()
    streamt_plugin(vault, name="vault", isolated=True)
    streamt_plugin(broadcast, name="broadcast")
    project = streamt_project(PROJECT)
    data = compiled(streamt_cli, project)
    assert vault.seen == ["kept"]  # not the source, not the `lake` model
    assert broadcast.seen == ["raw", "kept", "other"]
    assert data["files"] == ["manifest.json", "vault/entry.kept.json"]


def test_the_registration_decides_directory_manifest_key_file_name_and_plan_section(
    streamt_plugin: Any, streamt_project: Any, streamt_cli: Any, streamt_cli_text: Any
) -> None:
    streamt_plugin(Vault(directory="deep/vault", named_by="name", title="Vault Entries"), name="vault", isolated=True)
    project = streamt_project(PROJECT)
    data = compiled(streamt_cli, project)
    assert "deep/vault/kept.json" in data["files"]
    manifest = json.loads((project / "out" / "manifest.json").read_text())
    assert [entry["name"] for entry in manifest["artifacts"]["vault_entries"]] == ["kept"]
    assert list(manifest["artifacts"]) == ["vault_entries"]  # only registered kinds are listed; core registers none
    text = streamt_cli_text("plan", "--offline", "--project-dir", project).stdout
    assert "Vault Entries:" in text


def test_an_unregistered_kind_goes_under_its_own_name(streamt_plugin: Any, streamt_project: Any) -> None:
    streamt_plugin(Broadcast(), name="broadcast", isolated=True)
    registry = artifact_kinds(get_plugins())
    assert registry.placement("lake_table") == ("lake_table", "lake_table")
    assert registry.rank("lake_table") == (100, "lake_table")
    assert registry.title("lake_table") == "lake_table"


def test_two_plugins_registering_one_kind_is_a_structured_conflict_and_compile_fails_with_it(
    streamt_plugin: Any, streamt_project: Any, streamt_cli: Any
) -> None:
    first, second = Vault(), KindOnly()
    streamt_plugin(first, name="vault-a", isolated=True)
    streamt_plugin(second, name="vault-b")
    outcome = streamt_cli("compile", "--project-dir", streamt_project(PROJECT), "--dry-run")
    assert not outcome.ok
    (error,) = [e for e in outcome.envelope["errors"] if e["code"] == "E906_PLUGIN_CONFLICT"]
    assert (error["family"], error["kind"], error["plugins"]) == (
        "artifact_kind",
        "vault_entry",
        ["vault-a", "vault-b"],
    )
    assert first.seen == second.seen == []  # neither is used


def test_two_plugins_kinds_under_one_manifest_key_are_a_conflict(streamt_plugin: Any, streamt_cli: Any) -> None:
    class Other(KindOnly):
        @hookimpl
        def streamt_artifact_kinds(self) -> list[ArtifactKind]:
            return [ArtifactKind(name="other_entry", directory="other", manifest_key="vault_entries", rank=1)]

    streamt_plugin(Vault(), name="vault-a", isolated=True)
    streamt_plugin(Other(), name="vault-b")
    registry = artifact_kinds(get_plugins())
    assert "vault_entry" not in registry.table and "other_entry" not in registry.table
    found = [d for d in get_plugins().diagnostics if d.code.code == "E906_PLUGIN_CONFLICT"]
    assert [d.details for d in found] == [
        {"family": "manifest_key", "kind": "vault_entries", "plugins": ["vault-a", "vault-b"]}
    ]


@pytest.mark.parametrize(
    "registration",
    [{"directory": "../escape"}, {"directory": "/abs"}, {"directory": "a//b"}, {"rank": "1"}, {"named_by": "x"}],
)
def test_an_invalid_registration_is_reported_and_ignored(streamt_plugin: Any, registration: dict[str, Any]) -> None:
    streamt_plugin(Vault(**registration), name="vault", isolated=True)
    assert "vault_entry" not in artifact_kinds(get_plugins()).table
    (problem,) = [d for d in get_plugins().diagnostics if d.code.code == "E901_PLUGIN_LOAD_FAILED"]
    assert "invalid artifact kind" in problem.message


def test_the_flink_rule_is_the_flink_registration() -> None:
    from streamt_flink.kinds import FLINK_JOB

    def model(**fields: Any) -> Model:
        return Model(name="m", **fields)

    assert produces(FLINK_JOB, model(materialized="flink"))
    assert produces(FLINK_JOB, model(materialized="topic", sql="SELECT 1"))
    assert not produces(FLINK_JOB, model(materialized="topic", sql="SELECT 1", executor="kafka_streams"))
    assert not produces(FLINK_JOB, model(materialized="topic"))
    assert not produces(FLINK_JOB, model(materialized="virtual_topic", sql="SELECT 1"))


def test_streamt_plugins_lists_the_kinds_each_plugin_registers(streamt_cli: Any) -> None:
    outcome = streamt_cli("plugins", "--all")
    provided = {p["name"]: p["provides"]["artifact_kinds"] for p in outcome.envelope["data"]["plugins"]}
    assert provided["kafka"] == ["schema", "topic"]
    assert provided["flink"] == ["flink_job", "test_job"]
    assert provided["connect"] == ["connector", "connector_removal"]  # a removal kind is its provider's
    assert provided["gateway"] == ["gateway_rule", "gateway_rule_removal"]
    assert provided["streamt.builtin"] == []
