"""The compile walk with a small fake provider: order, collisions, capabilities, provider failures."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from streamt import hookimpl
from streamt.artifacts import Artifact
from streamt.capabilities import Materialization, RemovalKind
from streamt.compile import compile_project
from streamt.errors import Codes, StreamtError
from streamt.plugins import get_plugins
from streamt.project.loader import load_project
from streamt.project.model import Model, Source

RUNTIME = {"kafka": {"bootstrap_servers": "localhost:9092"}}


def project_files(models: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    body = {
        "project": {"name": "p"},
        "runtime": RUNTIME,
        "sources": [{"name": "raw", "topic": "raw.v1"}],
        "models": models,
        **extra,
    }
    return {"stream_project.yml": body}


class FakeLake:
    """Compiles every model to one 'lake_table' artifact that depends on its upstream tables."""

    def __init__(self, *, implemented: bool = True, fail_on: str | None = None) -> None:
        self.implemented = implemented
        self.fail_on = fail_on
        self.seen: list[str] = []

    @hookimpl
    def streamt_materializations(self) -> list[Any]:
        # A SQL topic model needs its executor too ('flink' by default).
        return [
            Materialization(name=name, description="fake", extra="kafka", implemented=self.implemented)
            for name in ("topic", "flink")
        ]

    @hookimpl
    def streamt_compile(self, declaration: Any) -> list[Any]:
        self.seen.append(declaration.name)
        if declaration.name == self.fail_on:
            raise RuntimeError("secret-password-in-message")
        if not isinstance(declaration, Model):
            return []
        deps = tuple(("lake_table", r.name) for r in declaration.dependencies if r.kind == "model")
        return [Artifact("lake_table", declaration.name, declaration.name, {"n": declaration.name}, depends_on=deps)]


@pytest.fixture
def only(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Register one fake plugin with every workspace plugin switched off."""
    from streamt.plugins import reset_plugins

    monkeypatch.setenv("STREAMT_LOAD_PLUGINS", "")
    reset_plugins()
    stack: list[Any] = []

    def register(plugin: object, name: str = "fake-lake") -> None:
        context = get_plugins().temporarily(plugin, name)
        context.__enter__()
        stack.append(context)

    yield register
    for context in stack:
        context.__exit__(None, None, None)
    monkeypatch.delenv("STREAMT_LOAD_PLUGINS")
    reset_plugins()


def chain(names: list[str]) -> list[dict[str, Any]]:
    """Models declared in the given order; each selects from the next name in alphabetical order."""
    ordered = sorted(names)
    models = []
    for name in names:
        i = ordered.index(name)
        upstream = f"{{{{ ref('{ordered[i - 1]}') }}}}" if i else "{{ source('raw') }}"
        models.append({"name": name, "sql": f"SELECT * FROM {upstream}", "materialized": "topic"})
    return models


def test_declarations_are_walked_upstream_first_and_artifacts_follow_dependencies(
    streamt_project: Callable[..., Path], only: Callable[[object], None]
) -> None:
    fake = FakeLake()
    only(fake)
    project = load_project(streamt_project(project_files(chain(["c_last", "a_first", "b_mid"]))))
    compiled = compile_project(project)
    assert fake.seen == ["raw", "a_first", "b_mid", "c_last"]
    assert [a.identity for a in compiled.artifacts] == ["a_first", "b_mid", "c_last"]


def test_two_artifacts_with_one_identity_are_a_name_collision(
    streamt_project: Callable[..., Path], only: Callable[[object], None]
) -> None:
    class Twice(FakeLake):
        @hookimpl
        def streamt_compile(self, declaration: Any) -> list[Any]:
            return [Artifact("lake_table", declaration.name, "same", {})] if isinstance(declaration, Model) else []

    only(Twice())
    project = load_project(streamt_project(project_files(chain(["a", "b"]))))
    with pytest.raises(StreamtError) as caught:
        compile_project(project)
    assert [d.code for d in caught.value.diagnostics] == [Codes.E111_NAME_COLLISION]
    assert "'a' and 'b'" in caught.value.diagnostics[0].message


def test_a_materialization_no_plugin_declares_names_the_extra_to_install(
    streamt_project: Callable[..., Path], only: Callable[[object], None]
) -> None:
    class NoTopics:
        @hookimpl
        def streamt_materializations(self) -> list[Any]:
            return []

    only(NoTopics())
    project = load_project(streamt_project(project_files(chain(["a"]))))
    with pytest.raises(StreamtError) as caught:
        compile_project(project)
    hints = {d.details["capability"]: d.suggestion for d in caught.value.diagnostics}
    assert {d.code for d in caught.value.diagnostics} == {Codes.E903_PLUGIN_REQUIRED}
    assert "streamt[kafka]" in hints["topic"] and "streamt[flink]" in hints["flink"]


def test_a_declared_but_unimplemented_materialization_is_e904(
    streamt_project: Callable[..., Path], only: Callable[[object], None]
) -> None:
    only(FakeLake(implemented=False))
    project = load_project(streamt_project(project_files(chain(["a"]))))
    with pytest.raises(StreamtError) as caught:
        compile_project(project)
    assert caught.value.diagnostics[0].code == Codes.E904_NOT_IMPLEMENTED


def test_a_provider_crash_fails_the_compile_naming_the_plugin_without_its_message(
    streamt_project: Callable[..., Path], only: Callable[[object], None]
) -> None:
    only(FakeLake(fail_on="b"))
    project = load_project(streamt_project(project_files(chain(["a", "b"]))))
    with pytest.raises(StreamtError) as caught:
        compile_project(project)
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.code == Codes.E999_INTERNAL_ERROR
    assert diagnostic.details == {"plugin": "fake-lake"}
    assert "secret-password" not in diagnostic.message


def test_a_provider_returning_something_else_than_artifacts_is_reported(
    streamt_project: Callable[..., Path], only: Callable[[object], None]
) -> None:
    class Sloppy(FakeLake):
        @hookimpl
        def streamt_compile(self, declaration: Any) -> list[Any]:
            return [{"kind": "lake_table"}] if isinstance(declaration, Source) else []

    only(Sloppy())
    project = load_project(streamt_project(project_files(chain(["a"]))))
    with pytest.raises(StreamtError) as caught:
        compile_project(project)
    assert caught.value.diagnostics[0].code == Codes.E999_INTERNAL_ERROR


TOMBSTONES = {
    "gateway_rule_removals": [
        {
            "logical_owner": "old_view",
            "prior_artifact": {"name": "old_view", "virtualTopic": "v", "physicalTopic": "raw.v1", "interceptors": []},
        }
    ],
    "connector_removals": [{"logical_owner": "old_sink", "name": "old_sink", "cluster": "primary"}],
}
CONNECT = {"default": "primary", "clusters": {"primary": {"rest_url": "http://localhost:8083"}}}


def test_lifecycle_tombstones_compile_to_removal_artifacts_of_their_plugins(
    streamt_project: Callable[..., Path], only: Callable[..., None]
) -> None:
    import streamt_connect.plugin
    import streamt_gateway.plugin

    only(FakeLake())
    only(streamt_connect.plugin, "connect")
    only(streamt_gateway.plugin, "gateway")
    files = project_files(chain(["a"]), lifecycle=TOMBSTONES)
    files["stream_project.yml"]["runtime"] = {**RUNTIME, "connect": CONNECT}
    compiled = compile_project(load_project(streamt_project(files)))
    removals = [(a.kind, a.name, a.identity, a.provider) for a in compiled.artifacts if a.kind.endswith("_removal")]
    # The provider stays the one a tombstone always named, so reviewed plans and state keep their bytes.
    assert removals == [
        ("connector_removal", "old_sink", "old_sink", "streamt-core"),
        ("gateway_rule_removal", "old_view", "old_view", "streamt-core"),
    ]


def test_a_lifecycle_list_whose_plugin_is_missing_is_e903_naming_the_extra(
    streamt_project: Callable[..., Path], only: Callable[..., None]
) -> None:
    only(FakeLake())  # no Connect or Gateway plugin: core compiles no tombstone itself
    files = project_files(chain(["a"]), lifecycle=TOMBSTONES)
    files["stream_project.yml"]["runtime"] = {**RUNTIME, "connect": CONNECT}
    with pytest.raises(StreamtError) as caught:
        compile_project(load_project(streamt_project(files)))
    found = [(d.code, d.message, d.suggestion) for d in caught.value.diagnostics]
    assert found == [
        (
            Codes.E903_PLUGIN_REQUIRED,
            "No installed plugin compiles 'lifecycle.connector_removals' tombstones.",
            "Install it with: pip install 'streamt[connect]'",
        ),
        (
            Codes.E903_PLUGIN_REQUIRED,
            "No installed plugin compiles 'lifecycle.gateway_rule_removals' tombstones.",
            "Install it with: pip install 'streamt[gateway]'",
        ),
    ]


@attrs.frozen(kw_only=True)
class TableRemoval:
    logical_owner: str
    name: str


class LakeRemovals:
    """An outside plugin's tombstone kind: core knows nothing of it but its registration."""

    @hookimpl
    def streamt_removal_kinds(self) -> list[Any]:
        return [
            RemovalKind(
                key="lake_table_removals",
                kind="lake_table_removal",
                model=TableRemoval,
                keys={"logical_owner": None, "name": None},
                extra="",
                tombstone=lambda e: Artifact("lake_table_removal", e.logical_owner, e.name, {"name": e.name}),
            )
        ]


def test_an_outside_plugin_owns_a_lifecycle_list_structured_checked_and_compiled_through_its_registration(
    streamt_project: Callable[..., Path], only: Callable[..., None]
) -> None:
    only(FakeLake())
    only(LakeRemovals(), "lake-removals")
    lifecycle = {"lake_table_removals": [{"logical_owner": "old", "name": "old_table"}]}
    project = load_project(streamt_project(project_files(chain(["a"]), lifecycle=lifecycle)))
    assert project.lifecycle.entries("lake_table_removals") == (TableRemoval(logical_owner="old", name="old_table"),)
    compiled = compile_project(project)
    assert compiled.find("lake_table_removal", "old_table") is not None
    typo = {
        "apiVersion": "streamt.dev/v1alpha1",
        "lifecycle": {"lake_table_removals": [{"logical_owner": "o", "nmae": "t"}]},
    }
    with pytest.raises(StreamtError) as caught:
        load_project(streamt_project(project_files(chain(["a"]), **typo)))
    (typo_found,) = caught.value.diagnostics
    assert typo_found.code == Codes.E501_PARSE_ERROR
    assert typo_found.message.startswith("Unknown key 'lifecycle.lake_table_removals[0].nmae'")
    assert "'name'" in (typo_found.suggestion or "")
