"""The entry-point loader: broken, malformed and incompatible plugins are reported, never fatal.

Plugins here are real installed distributions (``.dist-info`` + module) laid
out in a temporary directory on ``sys.path``, so discovery goes through
``importlib.metadata`` exactly as for a pip-installed plugin.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pluggy
import pytest
from streamt import plugins as plugins_module
from streamt.entry_points import find_entry_points
from streamt.errors import Codes
from streamt.plugins import BUILTIN_NAME, Plugins, get_plugins
from streamt_testing import write_distribution

GOOD = """
from streamt import hookimpl

@hookimpl
def streamt_materializations():
    return []
"""


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    directory = tmp_path / "site"
    directory.mkdir()
    monkeypatch.syspath_prepend(str(directory))
    yield directory
    for name in list(sys.modules):
        if name.startswith("fake_"):
            del sys.modules[name]


def load(site: Path, environ: dict[str, str] | None = None) -> Plugins:
    """Load only the fake distributions in ``site`` (not the workspace's plugins)."""
    plugins = Plugins()
    plugins.load_entry_points(find_entry_points("streamt", [str(site)]), environ or {})
    return plugins


def codes_of(plugins: Plugins) -> dict[str, str]:
    return {d.details["plugin"]: d.code.code for d in plugins.diagnostics}


def test_a_good_plugin_is_registered_with_its_distribution_version_and_hooks(site: Path) -> None:
    write_distribution(site, "fake-good", module="fake_good", source=GOOD, version="2.3.4")
    plugins = load(site)
    info = plugins.infos["fake_good"]
    assert (info.distribution, info.version, info.hooks) == ("fake-good", "2.3.4", ("streamt_materializations",))
    assert info.core_requirement == ">=0.1,<0.2"
    assert plugins.diagnostics == []


def test_a_plugin_that_raises_on_import_is_reported_and_the_others_still_load(site: Path) -> None:
    write_distribution(site, "fake-boom", module="fake_boom", source="raise RuntimeError('kaput')\n")
    write_distribution(site, "fake-good", module="fake_good", source=GOOD)
    plugins = load(site)
    assert codes_of(plugins) == {"fake_boom": "E901_PLUGIN_LOAD_FAILED"}
    assert "RuntimeError" in plugins.diagnostics[0].message and "kaput" not in plugins.diagnostics[0].message
    assert "fake_good" in plugins.infos and "fake_boom" not in plugins.infos


def test_a_malformed_hook_is_reported_and_the_plugin_left_out(site: Path) -> None:
    source = "from streamt import hookimpl\n\n@hookimpl\ndef streamt_no_such_hook():\n    return []\n"
    write_distribution(site, "fake-typo", module="fake_typo", source=source)
    plugins = load(site)
    assert codes_of(plugins) == {"fake_typo": "E901_PLUGIN_LOAD_FAILED"}
    assert "malformed hook" in plugins.diagnostics[0].message
    assert plugins.manager.get_plugin("fake_typo") is None


def test_a_hook_with_an_argument_the_spec_lacks_is_malformed(site: Path) -> None:
    source = "from streamt import hookimpl\n\n@hookimpl\ndef streamt_validate(project, env, extra):\n    return []\n"
    write_distribution(site, "fake-args", module="fake_args", source=source)
    plugins = load(site)
    assert codes_of(plugins) == {"fake_args": "E901_PLUGIN_LOAD_FAILED"}


@pytest.mark.parametrize(
    ("requires", "why"),
    [
        (["streamt-core>=9,<10"], "supports streamt-core >=9,<10"),
        ([], "does not declare"),
        (["streamt-core"], "does not declare"),
        (["streamt-core>=0.1; python_version < '3'"], "does not declare"),
    ],
)
def test_a_plugin_for_an_incompatible_core_is_refused_before_import(site: Path, requires: list[str], why: str) -> None:
    # The module would fail on import: refusing must happen before importing it.
    write_distribution(site, "fake-old", module="fake_old", source="raise SystemExit(3)\n", requires=requires)
    plugins = load(site)
    assert codes_of(plugins) == {"fake_old": "E902_PLUGIN_INCOMPATIBLE"}
    assert why in plugins.diagnostics[0].message
    assert "fake_old" not in sys.modules


def test_requirement_names_are_normalised(site: Path) -> None:
    write_distribution(site, "fake-norm", module="fake_norm", source=GOOD, requires=["Streamt_Core (>=0.1,<0.2)"])
    assert "fake_norm" in load(site).infos


def test_allow_list_loads_only_the_named_plugins(site: Path) -> None:
    write_distribution(site, "fake-one", module="fake_one", source=GOOD)
    write_distribution(site, "fake-two", module="fake_two", source=GOOD)
    assert set(load(site, {"STREAMT_LOAD_PLUGINS": "fake-two"}).infos) == {"fake_two"}
    assert set(load(site, {"STREAMT_LOAD_PLUGINS": "fake_one, fake_two"}).infos) == {"fake_one", "fake_two"}
    assert load(site, {"STREAMT_LOAD_PLUGINS": ""}).infos == {}


def test_disabled_plugins_are_not_imported(site: Path) -> None:
    write_distribution(site, "fake-boom", module="fake_boom", source="raise RuntimeError('kaput')\n")
    write_distribution(site, "fake-one", module="fake_one", source=GOOD)
    plugins = load(site, {"STREAMT_DISABLED_PLUGINS": "fake-boom"})
    assert plugins.diagnostics == [] and set(plugins.infos) == {"fake_one"}
    assert "fake_boom" not in sys.modules


def test_disabled_wins_over_allowed(site: Path) -> None:
    write_distribution(site, "fake-one", module="fake_one", source=GOOD)
    assert load(site, {"STREAMT_LOAD_PLUGINS": "fake_one", "STREAMT_DISABLED_PLUGINS": "fake_one"}).infos == {}


def test_core_is_registered_on_the_same_manager_and_survives_an_empty_allow_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STREAMT_LOAD_PLUGINS", "")
    monkeypatch.setattr(plugins_module, "_PLUGINS", None)
    plugins = get_plugins()
    assert list(plugins.infos) == [BUILTIN_NAME]
    assert plugins.infos[BUILTIN_NAME].builtin
    # Core's commands come through its own hook implementation on that manager.
    assert "streamt_commands" in plugins.infos[BUILTIN_NAME].hooks
    assert plugins.manager.get_plugin(BUILTIN_NAME) is not None
    monkeypatch.setattr(plugins_module, "_PLUGINS", None)


def test_plugin_error_codes_are_registered_and_a_core_code_cannot_be_redefined(site: Path) -> None:
    source = """
    from streamt import hookimpl
    from streamt.errors import ErrorCode

    @hookimpl
    def streamt_error_codes():
        return [ErrorCode("E951_FAKE_LAKE_FULL", "The fake lake is full", owner="fake-codes")]
    """
    hijack = """
    from streamt import hookimpl
    from streamt.errors import ErrorCode

    @hookimpl
    def streamt_error_codes():
        return [ErrorCode("E101_SOURCE_NOT_FOUND", "something else", owner="fake-hijack")]
    """
    write_distribution(site, "fake-codes", module="fake_codes", source=source)
    write_distribution(site, "fake-hijack", module="fake_hijack", source=hijack)
    plugins = load(site)
    try:
        assert Codes.E951_FAKE_LAKE_FULL.owner == "fake-codes"
        assert codes_of(plugins) == {"fake_hijack": "E901_PLUGIN_LOAD_FAILED"}
        assert Codes.E101_SOURCE_NOT_FOUND.owner == "streamt-core"
    finally:
        plugins.unregister("fake_codes")
    assert "E951_FAKE_LAKE_FULL" not in Codes


def test_an_import_error_is_reported_by_class_and_plugin_name_only(site: Path) -> None:
    # A plugin's message may carry a secret on any line: like E999, E901 shows the class only.
    for name, source in (
        ("fake_leak", "raise RuntimeError('cannot connect token=hunter2')\n"),
        ("fake_leak2", "raise RuntimeError('cannot connect\\npostgresql://user:hunter2@db/state')\n"),
    ):
        write_distribution(site, name.replace("_", "-"), module=name, source=source)
    diagnostics = load(site).diagnostics
    assert [d.message for d in diagnostics] == [
        "Plugin 'fake_leak' failed to import: RuntimeError",
        "Plugin 'fake_leak2' failed to import: RuntimeError",
    ]


def test_a_malformed_hook_names_the_hook_argument(site: Path) -> None:
    source = "from streamt import hookimpl\n\n@hookimpl\ndef streamt_compile(project, model):\n    return []\n"
    write_distribution(site, "fake-args", module="fake_args", source=source)
    (diagnostic,) = load(site).diagnostics
    assert diagnostic.message == (
        "Plugin 'fake_args' registered a malformed hook: streamt_compile declares argument(s) 'model', "
        "which the hook does not pass (it passes: project, declaration, env)"
    )


def test_a_plugin_that_exits_on_import_does_not_end_the_process(site: Path) -> None:
    write_distribution(site, "fake-exit", module="fake_exit", source="raise SystemExit(3)\n")
    assert codes_of(load(site)) == {"fake_exit": "E901_PLUGIN_LOAD_FAILED"}


def _hooks(manager: pluggy.PluginManager, plugin: object) -> list[tuple[str, object]]:
    callers = manager.get_hookcallers(plugin) or []
    return sorted((c.name, i.function) for c in callers for i in c.get_hookimpls() if i.plugin is plugin)


def test_the_manager_finds_exactly_the_hooks_pluggy_finds_in_every_installed_plugin() -> None:
    # streamt's manager skips pluggy's static lookup of a module's plain names (start-up cost).
    from streamt import builtin, hookspecs

    odd = types.ModuleType("fake_odd")
    exec(  # a marked static method (a hook) and a marked object that is no function (never one)
        "import streamt\n"
        "class K:\n    pass\n"
        "streamt_validate = staticmethod(streamt.hookimpl(lambda project: []))\n"
        "not_a_function = K()\n"
        "not_a_function.streamt_impl = {}\n",
        odd.__dict__,
    )
    modules = [builtin, odd, *(ep.load() for ep in find_entry_points("streamt"))]
    ours, reference = plugins_module._Manager("streamt"), pluggy.PluginManager("streamt")
    for manager in (ours, reference):
        manager.add_hookspecs(hookspecs)
        for module in modules:
            manager.register(module)
    for module in modules:
        assert _hooks(ours, module) == _hooks(reference, module), module.__name__
    assert _hooks(ours, odd) != []
