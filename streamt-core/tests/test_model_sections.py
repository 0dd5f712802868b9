"""A plugin's own model settings (``ConfigSection`` at ``model.<name>``): keys, types, interpolation, defaults."""

from __future__ import annotations

import types
from typing import Any

import attrs
import pytest
from streamt.project.model import Model, ModelDefaults
from streamt.sdk import ConfigSection, Materialization, StreamtError, hookimpl, load_project, model_section


@attrs.frozen(kw_only=True)
class Route:
    path: str
    headers: dict[str, str] = attrs.field(factory=dict)


ROUTE = ConfigSection(
    path="model.route",
    model=Route,
    keys={"path": None, "headers": None},
    extra="hooks",
    verbatim=("headers",),
    defaults=True,
)
SERVER = ConfigSection(path="model.route_server", model=str, keys=None, extra="hooks")


def _plugin() -> types.ModuleType:
    module = types.ModuleType("hooks")
    module.streamt_config_sections = hookimpl(lambda: [ROUTE, SERVER])  # type: ignore[attr-defined]
    module.streamt_materializations = hookimpl(  # type: ignore[attr-defined]
        lambda: [Materialization("hook", "a webhook", "hooks")]
    )
    return module


def _files(model: dict[str, Any], strict: bool = True, **top: Any) -> dict[str, Any]:
    document = {
        "project": {"name": "shop"},
        "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
        "models": [{"name": "m", "materialized": "hook", **model}],
        **top,
    }
    return {"stream_project.yml": {"apiVersion": "streamt.dev/v1alpha1", **document} if strict else document}


def test_core_has_no_provider_fields_on_a_model() -> None:
    names = {f.name for f in attrs.fields(Model)} | {f.name for f in attrs.fields(ModelDefaults)}
    assert not names & {"flink", "flink_cluster", "connect_cluster", "sink", "gateway"}


def test_a_model_section_is_the_plugins_class_at_the_top_level_or_under_advanced(streamt_plugin, streamt_project):
    streamt_plugin(_plugin())
    top = load_project(streamt_project(_files({"route": {"path": "/a"}, "route_server": "edge"})), process_env={})
    assert model_section(top.models[0], "route", Route) == Route(path="/a")
    assert model_section(top.models[0], "route_server", str) == "edge"
    nested = load_project(streamt_project(_files({"advanced": {"route": {"path": "/b"}}})), process_env={})
    assert model_section(nested.models[0], "route", Route) == Route(path="/b")
    assert model_section(nested.models[0], "route_server", str) is None


def test_the_same_value_in_both_places_differing_is_a_conflict(streamt_plugin, streamt_project):
    streamt_plugin(_plugin())
    model = {"route": {"path": "/a"}, "advanced": {"route": {"path": "/b"}}}
    with pytest.raises(StreamtError) as caught:
        load_project(streamt_project(_files(model)), process_env={})
    assert "'route.path' is set both at the top level and under 'advanced'" in caught.value.diagnostics[0].message


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ({"route": {"pth": "/a"}}, "Unknown key 'models[0].route.pth'"),
        ({"advanced": {"route": {"path": "/a", "x": 1}}}, "Unknown key 'models[0].advanced.route.x'"),
        ({"route": {"path": 3.5e9, "headers": []}}, "Invalid value at 'models[0].route.headers': expected a map"),
        ({"route_server": ["a"]}, "Invalid value at 'models[0].route_server': expected a string"),
    ],
)
def test_keys_and_types_are_checked_at_their_position(streamt_plugin, streamt_project, model, expected):
    streamt_plugin(_plugin())
    with pytest.raises(StreamtError) as caught:
        load_project(streamt_project(_files(model)), process_env={})
    (diagnostic,) = caught.value.diagnostics
    assert expected in diagnostic.message
    assert diagnostic.location and diagnostic.location.startswith("stream_project.yml:")


def test_verbatim_keys_keep_their_placeholders_and_the_others_are_interpolated(streamt_plugin, streamt_project):
    streamt_plugin(_plugin())
    model = {"route": {"path": "/${HOOK}", "headers": {"Authorization": "${TOKEN}"}}}
    project = load_project(streamt_project(_files(model)), process_env={"HOOK": "orders"})
    assert model_section(project.models[0], "route", Route) == Route(
        path="/orders", headers={"Authorization": "${TOKEN}"}
    )


def test_a_section_that_accepts_defaults_is_read_from_defaults_models(streamt_plugin, streamt_project):
    streamt_plugin(_plugin())
    files = _files({}, defaults={"models": {"route": {"path": "/default"}, "cluster": "main"}})
    project = load_project(streamt_project(files), process_env={})
    assert model_section(project.defaults.models, "route", Route) == Route(path="/default")
    assert project.defaults.models is not None and project.defaults.models.cluster == "main"
    refused = _files({}, defaults={"models": {"route_server": "edge"}})
    with pytest.raises(StreamtError, match=r"Unknown key 'defaults.models.route_server'"):
        load_project(streamt_project(refused), process_env={})


def test_without_its_plugin_a_key_is_unknown(streamt_isolated, streamt_project):
    with pytest.raises(StreamtError, match=r"Unknown key 'models\[0\].route'"):
        load_project(streamt_project(_files({"route": {"path": "/a"}})), process_env={})


def test_a_known_section_without_its_plugin_is_kept_as_written(streamt_isolated, streamt_project):
    files = _files({"flink": {"parallelism": 2}, "advanced": {"flink_cluster": "main"}})
    model = load_project(streamt_project(files), process_env={}).models[0]
    assert dict(model.section("flink")) == {"parallelism": 2} and model.section("flink_cluster") == "main"
    assert model_section(model, "flink", Route) is None  # not the owner's class: no plugin structured it


def test_a_plugin_cannot_claim_a_core_key_of_a_model(streamt_plugin, streamt_project, streamt_cli):
    grab = types.ModuleType("grab")
    grab.streamt_config_sections = hookimpl(  # type: ignore[attr-defined]
        lambda: [ConfigSection(path="model.topic", model=Route, keys={"path": None}, extra="grab")]
    )
    streamt_plugin(_plugin())
    streamt_plugin(grab)
    outcome = streamt_cli("validate", "-p", streamt_project(_files({"topic": {"partitions": 3}})))
    (refused,) = outcome.envelope["warnings"]
    assert refused["code"] == "E906_PLUGIN_CONFLICT" and refused["holder"] == "streamt-core"
    model = load_project(streamt_project(_files({"topic": {"partitions": 3}})), process_env={}).models[0]
    assert model.topic.partitions == 3 and model.section("topic") is None  # still core's
