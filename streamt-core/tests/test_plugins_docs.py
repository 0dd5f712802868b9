"""docs/plugins.md stays true: every hookspec is documented with its arguments, and the example is the real one."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from streamt import hookspecs

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "plugins.md"
EXAMPLE = REPO / "tests" / "example_plugin"


def hookspec_signatures() -> dict[str, str]:
    specs = {}
    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(function, "streamt_spec"):  # set by pluggy's HookspecMarker("streamt")
            specs[name] = ", ".join(inspect.signature(function).parameters)
    return specs


def documented_signatures() -> dict[str, str]:
    return dict(re.findall(r"^### `(streamt_\w+)\(([^)]*)\)`$", DOC.read_text(), re.M))


def test_the_hookspec_scan_finds_the_contract() -> None:
    assert {"streamt_commands", "streamt_exporters", "streamt_compile"} <= set(hookspec_signatures())


@pytest.mark.parametrize("hook", sorted(hookspec_signatures()))
def test_every_hookspec_is_documented_with_its_arguments(hook: str) -> None:
    documented = documented_signatures()
    assert hook in documented, f"docs/plugins.md has no '### `{hook}(...)`' section"
    assert documented[hook] == hookspec_signatures()[hook]


def test_no_documented_hook_is_missing_from_the_hookspecs() -> None:
    assert sorted(set(documented_signatures()) - set(hookspec_signatures())) == []


def test_every_hookspec_has_a_docstring() -> None:
    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(function, "streamt_spec"):
            assert (function.__doc__ or "").strip(), name


WORKED_EXAMPLES = [
    (EXAMPLE, "toml", "pyproject.toml"),
    (EXAMPLE, "python", "src/streamt_topics_csv/__init__.py"),
    (EXAMPLE, "python", "tests/test_topics_csv.py"),
    *[
        (REPO / "tests" / folder, fence, path)
        for folder, package, test in (
            ("example_validation_rule", "streamt_owner_rule", "test_owner_rule.py"),
            ("example_state_backend", "streamt_jsondir", "test_jsondir.py"),
            ("example_provider", "streamt_lake", "test_lake.py"),
            ("example_webhook", "streamt_webhook", "test_webhook.py"),
        )
        for fence, path in (
            ("toml", "pyproject.toml"),
            ("python", f"src/{package}/__init__.py"),
            ("python", f"tests/{test}"),
        )
    ],
]


@pytest.mark.parametrize(("root", "fence", "path"), WORKED_EXAMPLES, ids=lambda v: getattr(v, "name", v))
def test_the_worked_examples_in_the_docs_are_the_tested_distributions(root: Path, fence: str, path: str) -> None:
    blocks = re.findall(rf"^```{fence}\n(.*?)^```$", DOC.read_text(), re.M | re.S)
    source = (root / path).read_text()
    assert source in blocks, f"docs/plugins.md does not show {root.name}/{path} as it is; copy it again"


def test_every_worked_example_has_a_readme_and_one_version_source() -> None:
    for root in {r for r, _, _ in WORKED_EXAMPLES}:
        assert (root / "README.md").is_file(), root
        assert (root / "pyproject.toml").read_text().count("version = ") == 1, root


def test_the_config_section_example_runs_as_written(streamt_plugin, streamt_project) -> None:
    import types

    from streamt.sdk import load_project

    section = DOC.read_text().split("### `streamt_config_sections()`", 1)[1]
    (code,) = re.findall(r"^```python\n(.*?)^```$", section.split("\n### ", 1)[0], re.M | re.S)
    module = types.ModuleType("docs_lake")
    exec(compile(code, "docs/plugins.md", "exec"), module.__dict__)
    streamt_plugin(module)
    runtime = {"kafka": {"bootstrap_servers": "k:9092"}, "lake": {"warehouse": "s3://lake"}}
    project = load_project(streamt_project({"stream_project.yml": {"project": {"name": "p"}, "runtime": runtime}}))
    assert project.runtime.section("lake") == module.LakeRuntime(warehouse="s3://lake")
    assert project.runtime.enables("lake_table")


def test_the_config_section_example_says_what_a_model_needs(streamt_plugin, streamt_project) -> None:
    import types

    from streamt.sdk import load_project
    from streamt.validation import validate_project

    section = DOC.read_text().split("### `streamt_config_sections()`", 1)[1]
    (code,) = re.findall(r"^```python\n(.*?)^```$", section.split("\n### ", 1)[0], re.M | re.S)
    module = types.ModuleType("docs_lake")
    exec(compile(code, "docs/plugins.md", "exec"), module.__dict__)
    streamt_plugin(module)
    files = {
        "stream_project.yml": {
            "project": {"name": "p"},
            "runtime": {"kafka": {"bootstrap_servers": "k:9092"}},
            "models": [{"name": "orders", "materialized": "lake_table", "sql": "SELECT 1"}],
        }
    }
    report = validate_project(load_project(streamt_project(files)))
    needs = [d.message for d in report.errors if d.code.code == "E208_MISSING_CONFIG"]
    assert needs == ["Model 'orders' needs runtime.lake"]
