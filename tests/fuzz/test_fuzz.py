"""Hypothesis over raw bytes, arbitrary YAML and near-valid projects: the contract holds for every command.

And the property: for any project ``validate`` accepts, ``compile``, ``plan --offline``, ``lineage``
(all formats), every ``docs`` exporter and ``export strimzi`` never answer ``E999`` (nor break the
rest of the contract). Budgets: see ``strategies.budget`` and tests/fuzz/README.md.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from harness import check_contract, run_in_process
from hypothesis import given
from hypothesis import strategies as st
from strategies import ANY_VALUE, ENVIRONMENT_FILE, PROJECT, budget

# Offline commands that read a valid project; {out} is a scratch directory inside the run's folder.
AFTER_VALIDATE: tuple[tuple[str, ...], ...] = (
    ("compile",),
    ("plan", "--offline", "--out", "{out}/plan.json"),
    ("lineage",),
    ("lineage", "--format", "json"),
    ("lineage", "--format", "mermaid"),
    ("docs", "dictionary"),
    ("docs", "dictionary", "--format", "json"),
    ("docs", "odcs", "--contract-id", "c", "--status", "active"),
    ("docs", "asyncapi"),
    ("docs", "openlineage", "--job-namespace", "j", "--kafka-namespace", "kafka://x:1"),
    (
        "docs",
        "backstage",
        "--default-owner-ref",
        "group:default/team",
        "--catalog-id",
        "c",
        "--catalog-namespace",
        "default",
        "--lifecycle",
        "production",
        "--kafka-cluster-ref",
        "resource:default/k",
    ),
    ("docs", "datahub", "--catalog-id", "c", "--fabric", "PROD"),
    ("docs", "generate", "--output", "{out}/site"),
    ("export", "strimzi", "--namespace", "n", "--cluster-name", "c"),
    ("list", "models", "--sort-by", "upstream"),
    ("list", "sources"),
    ("list", "tests"),
    ("list", "exposures"),
    ("show", "model", "m"),
    ("show", "source", "s"),
    ("build", "--output-dir", "{out}/build"),
)


@contextmanager
def _project(files: dict[str, bytes]) -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="streamt-fuzz-"))
    try:
        root = folder / "p"
        for relative, data in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (folder / "out").mkdir()
        yield root
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _dump(document: Any, as_json: bool) -> bytes:
    if as_json:  # JSON is YAML, and it can carry what PyYAML refuses to emit (lone surrogates)
        return json.dumps(document).encode("utf-8")
    try:
        return yaml.safe_dump(document, allow_unicode=True, sort_keys=False).encode("utf-8", "surrogatepass")
    except yaml.YAMLError:
        return json.dumps(document).encode("utf-8")


def _check_every_command(root: Path, env: tuple[str, ...] = ()) -> None:
    envelope = check_contract(run_in_process(["validate", "-p", str(root), *env]), root.parent)
    if envelope["status"] != "ok":
        return
    out = root.parent / "out"
    for command in AFTER_VALIDATE:
        argv = [part.replace("{out}", str(out)) for part in command]
        check_contract(run_in_process([*argv, "-p", str(root), *env]), root.parent)


@budget(40)
@given(st.binary(max_size=400))
def test_raw_bytes_as_the_project_file(data: bytes) -> None:
    with _project({"stream_project.yml": data}) as root:
        check_contract(run_in_process(["validate", "-p", str(root)]), root.parent)


@budget(40)
@given(ANY_VALUE, st.booleans())
def test_any_yaml_document_as_the_project_file(document: Any, as_json: bool) -> None:
    with _project({"stream_project.yml": _dump(document, as_json)}) as root:
        check_contract(run_in_process(["validate", "-p", str(root)]), root.parent)
        check_contract(run_in_process(["lineage", "-p", str(root)]), root.parent)


@budget(60)
@given(PROJECT, st.booleans(), st.lists(ANY_VALUE, max_size=2))
def test_near_valid_projects_keep_the_contract_in_every_command(
    document: dict[str, Any], as_json: bool, declarations: list[Any]
) -> None:
    files = {"stream_project.yml": _dump(document, as_json)}
    for index, extra in enumerate(declarations):
        files[f"models/extra{index}.yml"] = _dump(extra, as_json)
    with _project(files) as root:
        _check_every_command(root)


@budget(30)
@given(PROJECT, st.dictionaries(st.sampled_from(["dev", "prod", "bad name"]), ENVIRONMENT_FILE, min_size=1, max_size=2))
def test_near_valid_multi_environment_projects_keep_the_contract(
    document: dict[str, Any], environments: dict[str, Any]
) -> None:
    document = {k: v for k, v in document.items() if k != "runtime"}
    files = {"stream_project.yml": _dump(document, False)}
    files.update({f"environments/{name}.yml": _dump(body, False) for name, body in environments.items()})
    with _project(files) as root:
        check_contract(run_in_process(["envs", "list", "-p", str(root)]), root.parent)
        for name in environments:
            check_contract(run_in_process(["envs", "show", name, "-p", str(root)]), root.parent)
            _check_every_command(root, ("--env", name))
