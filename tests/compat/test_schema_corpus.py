"""``streamt schema`` against real projects: every example validates, and over the 258 compatibility
projects the schema flags exactly the keys the loader calls unknown, and nothing else."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from shared_material import SHARED
from streamt.errors import StreamtError
from streamt.plugins import get_plugins
from streamt.project import schema as keys
from streamt.project import sections
from streamt.project.json_schema import file_kind, file_schemas
from streamt.project.loader import declaration_files
from streamt.project.yaml_io import load_yaml

sys.path.insert(0, str(Path(__file__).parent))
from corpus import CORPUS

ROOT = Path(__file__).resolve().parents[2]


def project_roots(base: Path) -> list[Path]:
    return sorted({path.parent for path in base.rglob("stream_project.y*ml")})


def project_files(root: Path) -> list[tuple[str, Path]]:
    """(schema name, path) of every file of the project the loader reads."""
    candidates = [root / "stream_project.yml", root / "stream_project.yaml", *declaration_files(root)]
    candidates += sorted((root / "environments").glob("*.y*ml")) if (root / "environments").is_dir() else []
    found = []
    for path in candidates:
        kind = file_kind(path.relative_to(root).as_posix())
        if kind is not None and path.is_file():
            found.append((kind, path))
    return found


def document(path: Path) -> Any:
    # The loader's own parser; dates and other YAML-only scalars become the strings the loader sees.
    return json.loads(json.dumps(load_yaml(path, path.name), default=str))


@pytest.fixture(scope="module")
def validators() -> dict[str, jsonschema.Draft202012Validator]:
    made = {name: jsonschema.Draft202012Validator(schema) for name, schema in file_schemas().items()}
    for validator in made.values():
        jsonschema.Draft202012Validator.check_schema(validator.schema)
    return made


@pytest.fixture(scope="module")
def loader_trees() -> dict[str, Any]:
    registry = sections.registry(get_plugins())
    return {
        "project": sections.accepted_keys(keys.PROJECT_FILE, registry),
        "environment": sections.accepted_keys(keys.ENVIRONMENT_FILE, registry),
        "declarations": sections.accepted_keys(keys.DECLARATIONS, registry),
    }


def _unknown_by_schema(validator: jsonschema.Draft202012Validator, doc: Any) -> set[str]:
    found = set()
    for error in validator.iter_errors(doc):
        assert error.validator == "additionalProperties", (list(error.absolute_path), error.message)
        extra = set(error.instance) - set(error.schema.get("properties", {}))
        found |= {keys.dotted((*error.absolute_path, key)) for key in extra}
    return found


def test_every_example_validates(validators) -> None:
    roots = project_roots(ROOT / "examples") + project_roots(SHARED / "spec" / "examples")
    assert len(roots) >= 7
    for root in roots:
        for kind, path in project_files(root):
            errors = [e.message for e in validators[kind].iter_errors(document(path))]
            assert not errors, (path, errors[:3])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="compat corpus not present")
def test_the_corpus_has_exactly_the_unknown_keys_the_loader_finds(validators, loader_trees) -> None:
    roots = project_roots(CORPUS)
    assert len(roots) == 258
    flagged = 0
    for root in roots:
        for kind, path in project_files(root):
            try:
                doc = document(path)
            except StreamtError:  # not YAML: the loader refuses the file before any key is checked
                continue
            by_loader = {u.dotted for u in keys.unknown_keys(doc, loader_trees[kind])}
            assert _unknown_by_schema(validators[kind], doc) == by_loader, path
            flagged += bool(by_loader)
    assert flagged >= 20  # the corpus does hold legacy files with keys the loader ignores (W401)
