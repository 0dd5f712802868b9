"""`streamt plugin new` and STREAMT_PLUGINS_DIR, in-process (tests/packaging installs and runs what it writes)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from streamt import __version__
from streamt.errors import Codes
from streamt.scaffold import KINDS, KIT_REQUIREMENT, core_range


@pytest.fixture(autouse=True)
def _no_code_outlives_its_test() -> Iterator[None]:
    # A STREAMT_PLUGINS_DIR rule registers its code; forgetting the plugins does not take it away.
    before = {code.code for code in Codes.all()}
    yield
    for code in Codes.all():
        if code.code not in before:
            Codes.unregister(code.code)


@pytest.mark.parametrize("kind", KINDS)
def test_a_distribution_with_entry_point_core_range_typed_module_kit_test_and_readme(
    streamt_cli, tmp_path: Path, kind: str
) -> None:
    written = streamt_cli("plugin", "new", kind, "acme-thing", "--directory", tmp_path)
    assert written.ok, written.envelope
    root = tmp_path / "streamt-acme-thing"
    assert written.data["path"] == str(root) and written.data["distribution"] == "streamt-acme-thing"
    assert written.data["files"] == [
        "README.md",
        "pyproject.toml",
        "src/streamt_acme_thing/__init__.py",
        "src/streamt_acme_thing/py.typed",
        "tests/conftest.py",
        "tests/test_acme_thing.py",
    ]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["streamt"] == {"acme-thing": "streamt_acme_thing"}
    assert f"streamt-core{core_range()}" in project["dependencies"]
    groups = tomllib.loads((root / "pyproject.toml").read_text())["dependency-groups"]
    assert groups == {"dev": ["pytest>=8", KIT_REQUIREMENT]}, "its tests need the kit, as a dev dependency only"
    module = (root / "src/streamt_acme_thing/__init__.py").read_text()
    test = (root / "tests/test_acme_thing.py").read_text()
    assert "from streamt.sdk import" in module and "streamt_testing.contracts import" in test
    assert not re.search(r"__[A-Z]+__", module + test), "a placeholder was left"


def test_the_core_range_is_this_minor_release_line() -> None:
    assert (core_range("0.1.3"), core_range("0.12.0"), core_range("2.4.1")) == (
        ">=0.1,<0.2",
        ">=0.12,<0.13",
        ">=2.4,<3",
    )


def test_the_kit_requirement_admits_the_kit_release_that_supports_this_core() -> None:
    assert Requirement(KIT_REQUIREMENT).specifier.contains(metadata.version("streamt-testing"))
    (core,) = [r for r in map(Requirement, metadata.requires("streamt-testing") or []) if r.name == "streamt-core"]
    assert core.specifier.contains(__version__)


@pytest.mark.parametrize("name", ["Acme", "acme_thing", "-acme", "acme--thing", "a" * 41, "acme/../x"])
def test_a_name_that_is_no_distribution_name_is_a_usage_error(streamt_cli, tmp_path: Path, name: str) -> None:
    refused = streamt_cli("plugin", "new", "rule", name, "--directory", tmp_path)
    assert refused.error_codes == ["E900_USAGE_ERROR"] and list(tmp_path.iterdir()) == []


def test_an_existing_directory_is_never_overwritten(streamt_cli, tmp_path: Path) -> None:
    (tmp_path / "streamt-acme").mkdir()
    (tmp_path / "streamt-acme" / "mine.txt").write_text("keep")
    refused = streamt_cli("plugin", "new", "exporter", "acme", "--directory", tmp_path)
    assert refused.error_codes == ["E905_OUTPUT_WRITE_FAILED"]
    assert [p.name for p in (tmp_path / "streamt-acme").iterdir()] == ["mine.txt"]


def test_plugins_dir_loads_an_unpackaged_plugin_clearly_marked(streamt_cli, streamt_cli_text, tmp_path: Path) -> None:
    assert streamt_cli("plugin", "new", "rule", "acme-dir", "--directory", tmp_path).ok
    src = tmp_path / "streamt-acme-dir" / "src"
    listing = streamt_cli("plugins", env={"STREAMT_PLUGINS_DIR": str(src)})
    assert listing.ok, listing.envelope
    (plugin,) = [p for p in listing.data["plugins"] if p["name"] == "streamt_acme_dir"]
    assert (plugin["plugins_dir"], plugin["distribution"], plugin["core_requirement"]) == (str(src), None, None)
    assert plugin["hooks"] == ["streamt_error_codes", "streamt_validate"]
    text = streamt_cli_text("plugins", env={"STREAMT_PLUGINS_DIR": str(src)})
    assert f"streamt_acme_dir  (unpackaged, from STREAMT_PLUGINS_DIR {src})" in text.stdout
    skipped = streamt_cli(
        "plugins", env={"STREAMT_PLUGINS_DIR": str(src), "STREAMT_DISABLED_PLUGINS": "streamt_acme_dir"}
    )
    assert "streamt_acme_dir" not in {p["name"] for p in skipped.data["plugins"]}


def test_a_broken_module_in_plugins_dir_is_e901_by_its_builtin_class(streamt_cli, tmp_path: Path) -> None:
    (tmp_path / "kit_broken_dir.py").write_text("class Hunter2Token(KeyError):\n    pass\n\nraise Hunter2Token('x')\n")
    listing = streamt_cli("plugins", env={"STREAMT_PLUGINS_DIR": str(tmp_path)})
    (error,) = [e for e in listing.envelope["errors"] if e["plugin"] == "kit_broken_dir"]
    assert error["message"] == "Plugin 'kit_broken_dir' failed to import: KeyError"
    assert "Hunter2Token" not in listing.stdout + listing.stderr


EXAMPLES = Path(__file__).resolve().parents[2] / "tests"


@pytest.mark.parametrize(
    ("kind", "example", "name", "overrides"),
    [
        ("exporter", "example_plugin", "topics-csv", {}),
        ("rule", "example_validation_rule", "owner-rule", {"__CODE__": "E960_MODEL_OWNER_MISSING"}),
        ("state-backend", "example_state_backend", "jsondir", {"__CLASS__": "JsonDir"}),
    ],
)
def test_a_template_is_its_worked_example_renamed(
    kind: str, example: str, name: str, overrides: dict[str, str]
) -> None:
    # One source: the worked examples of docs/plugins.md are tested; the scaffold is them, renamed.
    # (The provider's template cannot be renamed back: its example names the kind and the plugin alike.)
    from streamt.scaffold import TEMPLATES, placeholders, render

    names = {**placeholders(name), **overrides}
    package = names["__PACKAGE__"]
    module = render(TEMPLATES / kind / "module.py.tmpl", names)
    assert module == (EXAMPLES / example / "src" / package / "__init__.py").read_text()
    (test,) = (EXAMPLES / example / "tests").glob("test_*.py")
    rendered = render(TEMPLATES / kind / "test_module.py.tmpl", names)
    assert rendered == test.read_text()


def test_what_a_plugins_dir_module_prints_goes_to_stderr(streamt_cli, tmp_path: Path) -> None:
    (tmp_path / "kit_chatty.py").write_text(
        "from streamt.sdk import ErrorCode, hookimpl\n"
        "print('chatty at import')\n\n"
        "@hookimpl\n"
        "def streamt_error_codes():\n"
        "    print('chatty in a hook')\n"
        "    return [ErrorCode('E988_KIT_CHATTY', 'A chatty plugin', 'kit-chatty')]\n"
    )
    helped = streamt_cli("--help", env={"STREAMT_PLUGINS_DIR": str(tmp_path)})
    assert helped.ok and "chatty" not in helped.data["help"]
    listing = streamt_cli("plugins")
    assert listing.ok and "kit_chatty" in {p["name"] for p in listing.data["plugins"]}
