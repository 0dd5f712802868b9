"""A plugin's own configuration section (``streamt_config_sections``): keys, types, checks, inference."""

from __future__ import annotations

import types
from typing import Any

import attrs
import pytest
from streamt.sdk import (
    Codes,
    ConfigSection,
    Diagnostic,
    Materialization,
    StreamtError,
    hookimpl,
    load_project,
    replace,
)


@attrs.frozen(kw_only=True)
class LakeRuntime:
    warehouse: str
    partitions: int = 1
    tables: dict[str, str] = attrs.field(factory=dict)


def _lake_check(lake: LakeRuntime, project: Any) -> list[Diagnostic]:
    if lake.partitions < 1:
        return [Diagnostic(Codes.E501_PARSE_ERROR, "runtime.lake.partitions must be at least 1", "Set 1 or more.")]
    return []


SECTION = ConfigSection(
    path="runtime.lake",
    model=LakeRuntime,
    keys={"warehouse": None, "partitions": None, "tables": {"*": None}},
    extra="lake",
    check=_lake_check,
    enables=lambda lake: ("lake_table",),
)
SECRETS = ConfigSection(
    path="deployment_state.vault",
    model=attrs.make_class("Vault", {"token_env": attrs.field()}),
    keys={"token_env": None},
    extra="vault",
    interpolate=False,
)


def _plugin(name: str, **hooks: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    for hook, function in hooks.items():
        setattr(module, hook, hookimpl(function))
    return module


LAKE = _plugin(
    "lake",
    streamt_config_sections=lambda: [SECTION, SECRETS],
    streamt_materializations=lambda: [Materialization("lake_table", "lake", "lake")],
)


def _files(lake: Any, **top: Any) -> dict[str, Any]:
    return {
        "stream_project.yml": {
            "project": {"name": "shop"},
            "runtime": {"kafka": {"bootstrap_servers": "k:9092"}, "lake": lake},
            **top,
        }
    }


def test_a_claimed_section_is_structured_into_the_plugin_class_and_kept_read_only(
    streamt_plugin, streamt_project
) -> None:
    streamt_plugin(LAKE)
    project = load_project(streamt_project(_files({"warehouse": "s3://w", "tables": {"a": "x"}})), process_env={})
    lake = project.runtime.section("lake")
    assert lake == LakeRuntime(warehouse="s3://w", tables={"a": "x"})
    assert project.runtime.enables("lake_table") and not project.runtime.enables("flink")
    with pytest.raises(TypeError):
        project.runtime.sections["lake"] = None  # type: ignore[index]


def test_a_wrong_type_in_a_plugin_section_is_e501_at_its_path(streamt_plugin, streamt_project) -> None:
    streamt_plugin(LAKE)
    with pytest.raises(StreamtError) as refused:
        load_project(streamt_project(_files({"warehouse": [5], "partitions": "two"})), process_env={})
    messages = [d.message for d in refused.value.diagnostics]
    assert any(m.startswith("Invalid value at 'runtime.lake.warehouse': expected a string") for m in messages)
    assert any(m.startswith("Invalid value at 'runtime.lake.partitions': expected an integer") for m in messages)


def test_unknown_keys_of_a_plugin_section_are_w401_in_legacy_and_e501_in_strict(
    streamt_plugin, streamt_project, streamt_cli
) -> None:
    streamt_plugin(LAKE)
    legacy = streamt_cli("validate", "-p", streamt_project(_files({"warehouse": "w", "warehous": 1})))
    assert legacy.ok and [w["code"] for w in legacy.envelope["warnings"]] == ["W401_UNKNOWN_FIELD_IGNORED"]
    assert legacy.envelope["warnings"][0]["suggestion"] == "Did you mean 'warehouse'?"
    strict = streamt_cli(
        "validate",
        "-p",
        streamt_project(
            _files({"warehouse": "w", "tables": {"any": "x", "name": "y"}}, apiVersion="streamt.dev/v1alpha1")
        ),
    )
    assert strict.ok  # "*": any table name
    refused = streamt_cli(
        "validate", "-p", streamt_project(_files({"warehouse": "w", "nope": 1}, apiVersion="streamt.dev/v1alpha1"))
    )
    assert (
        refused.error_codes == ["E501_PARSE_ERROR"] and "runtime.lake.nope" in refused.envelope["errors"][0]["message"]
    )


def test_validate_runs_the_owner_check(streamt_plugin, streamt_project, streamt_cli) -> None:
    streamt_plugin(LAKE)
    refused = streamt_cli("validate", "-p", streamt_project(_files({"warehouse": "w", "partitions": 0})))
    assert refused.error_codes == ["E501_PARSE_ERROR"]
    assert refused.envelope["errors"][0]["message"] == "runtime.lake.partitions must be at least 1"


def test_a_section_that_keeps_placeholders_is_not_interpolated(streamt_plugin, streamt_project) -> None:
    streamt_plugin(LAKE)
    files = _files({"warehouse": "${WAREHOUSE}"}, deployment_state={"vault": {"token_env": "${NOT_SET}"}})
    project = load_project(streamt_project(files), process_env={"WAREHOUSE": "s3://w"})
    assert project.runtime.section("lake").warehouse == "s3://w"
    assert project.deployment_state.section("vault").token_env == "${NOT_SET}"


def test_without_its_plugin_a_section_is_kept_as_written_and_unknown_ones_stay_unknown(
    streamt_isolated, streamt_project, streamt_cli
) -> None:
    project = load_project(streamt_project(_files({"warehouse": "w", "tables": {"a": "x"}})), process_env={})
    assert project.runtime.section("lake") is None  # nobody claims it and the catalog does not know it
    outcome = streamt_cli("validate", "-p", streamt_project(_files({"warehouse": "w"})))
    assert next(w["message"] for w in outcome.envelope["warnings"]).startswith("Unknown key 'runtime.lake' ignored")
    known = load_project(
        streamt_project(
            {
                "stream_project.yml": {
                    "project": {"name": "shop"},
                    "runtime": {"kafka": {"bootstrap_servers": "k"}, "flink": {"clusters": {"a": {}}}},
                }
            }
        ),
        process_env={},
    )
    assert known.runtime.section("flink") == {"clusters": {"a": {}}}  # read-only, as written
    assert known.runtime.enables("flink")  # what the catalog's flink extra provides


def test_two_plugins_claiming_one_section_is_e906_naming_both(streamt_plugin, streamt_project, streamt_cli) -> None:
    streamt_plugin(LAKE, isolated=True)
    streamt_plugin(_plugin("lake_copy", streamt_config_sections=lambda: [SECTION]))
    refused = streamt_cli("validate", "-p", streamt_project(_files({"warehouse": "w"})))
    assert "E906_PLUGIN_CONFLICT" in refused.error_codes
    error = next(e for e in refused.envelope["errors"] if e["code"] == "E906_PLUGIN_CONFLICT")
    assert error["plugins"] == ["lake", "lake_copy"]


def test_a_raising_check_is_that_plugins_e999_without_its_message(streamt_plugin, streamt_project, streamt_cli) -> None:
    def broken(_value: Any, _project: Any) -> list[Diagnostic]:
        raise RuntimeError("token=hunter2")

    section = replace(SECTION, check=broken)
    streamt_plugin(_plugin("leaky", streamt_config_sections=lambda: [section]))
    outcome = streamt_cli("validate", "-p", streamt_project(_files({"warehouse": "w"})))
    assert outcome.error_codes == ["E999_INTERNAL_ERROR"]
    assert "hunter2" not in outcome.stdout and "'leaky'" in outcome.envelope["errors"][0]["message"]


def _needs_lake(declaration: Any, project: Any) -> list[Diagnostic]:
    if getattr(declaration, "materialized", None) != "lake_table" or project.runtime.section("lake") is not None:
        return []
    return [Diagnostic(Codes.E208_MISSING_CONFIG, f"'{declaration.name}' needs runtime.lake", "Add runtime.lake.")]


def _needs_archive(declaration: Any, _project: Any) -> list[Diagnostic]:
    return [Diagnostic(Codes.E208_MISSING_CONFIG, f"'{declaration.name}' needs runtime.archive", "Add it.")]


ARCHIVE = ConfigSection(path="runtime.archive", model=LakeRuntime, keys={}, extra="archive")


def test_declaration_checks_run_per_declaration_in_section_order_written_or_not(
    streamt_plugin, streamt_project, streamt_cli
) -> None:
    # The output follows the section paths (archive < lake), whatever order pluggy calls the plugins in,
    # model by model, then the tests.
    streamt_plugin(
        _plugin("archive", streamt_config_sections=lambda: [replace(ARCHIVE, check_declaration=_needs_archive)])
    )
    streamt_plugin(_plugin("lake2", streamt_config_sections=lambda: [replace(SECTION, check_declaration=_needs_lake)]))
    files = {
        "stream_project.yml": {
            "project": {"name": "shop"},
            "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
            "sources": [{"name": "s", "topic": "s"}],
            "models": [
                {"name": "a", "materialized": "lake_table", "from": [{"source": "s"}]},
                {"name": "b", "materialized": "lake_table", "from": [{"source": "s"}]},
            ],
            "tests": [{"name": "t", "model": "a", "type": "schema"}],
        }
    }
    outcome = streamt_cli("validate", "-p", streamt_project(files))
    messages = [e["message"] for e in outcome.envelope["errors"] if e["code"] == "E208_MISSING_CONFIG"]
    assert messages == [
        "'a' needs runtime.archive",
        "'a' needs runtime.lake",
        "'b' needs runtime.archive",
        "'b' needs runtime.lake",
        "'t' needs runtime.archive",
    ]


def test_a_raising_declaration_check_is_one_e999_and_the_others_still_report(
    streamt_plugin, streamt_project, streamt_cli
) -> None:
    def broken(_declaration: Any, _project: Any) -> list[Diagnostic]:
        raise RuntimeError("token=hunter2")

    streamt_plugin(_plugin("leaky", streamt_config_sections=lambda: [replace(ARCHIVE, check_declaration=broken)]))
    streamt_plugin(_plugin("lake2", streamt_config_sections=lambda: [replace(SECTION, check_declaration=_needs_lake)]))
    models = [{"name": n, "materialized": "lake_table", "from": [{"source": "s"}]} for n in ("a", "b")]
    files = {
        "stream_project.yml": {
            "project": {"name": "shop"},
            "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
            "sources": [{"name": "s", "topic": "s"}],
            "models": models,
        }
    }
    outcome = streamt_cli("validate", "-p", streamt_project(files))
    assert outcome.error_codes.count("E999_INTERNAL_ERROR") == 1 and "hunter2" not in outcome.stdout
    assert [e["message"] for e in outcome.envelope["errors"] if e["code"] == "E208_MISSING_CONFIG"] == [
        "'a' needs runtime.lake",
        "'b' needs runtime.lake",
    ]


def test_core_sections_are_the_keys_core_reads() -> None:
    from streamt.claims import CORE_SECTIONS
    from streamt.project.schema import DEPLOYMENT_STATE, MODEL, RUNTIME, SOURCE

    derived = {f"runtime.{k}" for k in RUNTIME} | {f"deployment_state.{k}" for k in DEPLOYMENT_STATE}
    model = {f"model.{k}" for k in MODEL if k != "connector"}  # the sink section's legacy spelling
    assert set(CORE_SECTIONS) == derived | model | {f"source.{k}" for k in SOURCE}
