"""Core installs and runs alone; each plugin installs on top of core alone; plugins stay independent."""

from __future__ import annotations

import ast
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "streamt-core"
# The conformance kit is a plugin's test dependency, not a plugin: it registers no streamt entry point.
KIT = REPO / "streamt-testing"
PLUGIN_DIRS = sorted(
    [path.parent for path in REPO.glob("streamt-*/pyproject.toml") if path.parent not in (CORE, KIT)]
    + [path.parent for path in REPO.glob("streamt-exporters/streamt-exporter-*/pyproject.toml")]
)

TOPIC_FREE_PROJECT = """\
project:
  name: no_topics
runtime:
  kafka:
    bootstrap_servers: localhost:9092
"""


def test_core_alone_answers_version(core_venv) -> None:
    done = core_venv.run("--version")
    assert done.returncode == 0 and done.stdout.strip() == "streamt 0.1.0", done


def test_core_alone_lists_no_plugins_and_says_how_to_add_them(core_venv) -> None:
    envelope = core_venv.envelope("plugins")
    assert envelope["status"] == "ok" and envelope["data"]["count"] == 0
    assert "pip install 'streamt[all]'" in core_venv.run("plugins").stdout


def test_core_alone_names_the_extra_for_a_plugin_command(core_venv) -> None:
    envelope = core_venv.envelope("export", "strimzi")
    assert [e["code"] for e in envelope["errors"]] == ["E903_PLUGIN_REQUIRED"]
    assert "streamt[exporters]" in envelope["errors"][0]["suggestion"]


def test_core_alone_validates_a_topic_free_project(core_venv, tmp_path: Path) -> None:
    (tmp_path / "stream_project.yml").write_text(TOPIC_FREE_PROJECT)
    envelope = core_venv.envelope("validate", "--project-dir", tmp_path)
    if [e["code"] for e in envelope["errors"]] == ["E904_NOT_IMPLEMENTED"]:
        pytest.xfail("validate is still the E904 placeholder in this build")
    assert envelope["status"] == "ok", envelope


def test_core_alone_installs_no_test_tool(core_venv) -> None:
    probe = "import importlib.util as u; print([m for m in ('pytest', 'streamt_testing') if u.find_spec(m)])"
    done = subprocess.run([str(core_venv.python), "-c", probe], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done


def test_the_kit_installs_on_core_alone_and_pytest_loads_its_fixtures(make_venv, tmp_path: Path) -> None:
    venv = make_venv(KIT)
    assert venv.envelope("plugins")["data"]["count"] == 0, "the kit is no streamt plugin"
    (tmp_path / "test_uses_the_kit.py").write_text(
        "from streamt_testing.contracts import ExporterContract\n\n\n"
        "def test_a_fixture_without_an_import(streamt_cli) -> None:\n"
        "    assert streamt_cli('plugins').ok and ExporterContract\n"
    )
    done = venv.pytest("test_uses_the_kit.py", cwd=tmp_path)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


def plugin_id(path: Path) -> str:
    return path.name


@pytest.mark.parametrize("plugin_dir", PLUGIN_DIRS, ids=plugin_id)
def test_each_plugin_installs_on_core_alone_and_is_discovered_cleanly(make_venv, plugin_dir: Path) -> None:
    venv = make_venv(plugin_dir)
    envelope = venv.envelope("plugins")
    assert envelope["status"] == "ok", envelope["errors"]
    assert [p["distribution"] for p in envelope["data"]["plugins"]] == [project_name(plugin_dir)]
    assert envelope["data"]["plugins"][0]["hooks"]
    help_page = venv.run("--help")
    assert help_page.returncode == 0, help_page.stderr


def project_name(directory: Path) -> str:
    return tomllib.loads((directory / "pyproject.toml").read_text())["project"]["name"]


def declared_plugin_dependencies(directory: Path) -> set[str]:
    requirements = tomllib.loads((directory / "pyproject.toml").read_text())["project"].get("dependencies", [])
    names = {re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower() for requirement in requirements}
    return {name.replace("-", "_") for name in names if name.startswith("streamt-") and name != "streamt-core"}


def imported_streamt_packages(directory: Path) -> set[str]:
    found = set()
    for source in (directory / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(), str(source))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            found |= {name.split(".")[0] for name in names if name.startswith("streamt_")}
    return found


@pytest.mark.parametrize("plugin_dir", PLUGIN_DIRS, ids=plugin_id)
def test_no_plugin_imports_another_unless_it_declares_it(plugin_dir: Path) -> None:
    own = {path.name for path in (plugin_dir / "src").iterdir() if path.is_dir()}
    undeclared = imported_streamt_packages(plugin_dir) - own - declared_plugin_dependencies(plugin_dir)
    assert undeclared == set(), f"{plugin_dir.name} imports {sorted(undeclared)} without depending on it"


def test_core_imports_no_plugin() -> None:
    assert imported_streamt_packages(CORE) == set()


def test_the_import_scan_sees_imports(tmp_path: Path) -> None:
    # Guard against a scan that finds nothing and so passes vacuously.
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "m.py").write_text("import streamt_kafka.x\nfrom streamt_flink import y\n")
    assert imported_streamt_packages(tmp_path) == {"streamt_kafka", "streamt_flink"}
