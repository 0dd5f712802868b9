"""The streamed writer (one artifact rendered at a time) writes exactly the bytes of the in-memory ``render``.

``compile`` and ``build`` write with ``write_compiled`` and plans bind to ``manifest`` alone; ``render``
builds the whole tree in memory and is the reference here, on every spec example (topics, schemas,
Flink jobs with their ``.sql``, connectors, Gateway rules, Kafka Streams jobs) and the quickstart.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from shared_material import SHARED
from streamt.artifacts import canonical_json, sha256_checksum
from streamt.compile import (
    CHECKSUMS,
    checksum_file,
    load_and_compile,
    manifest,
    manifest_checksum,
    output_paths,
    render,
    write_compiled,
)
from streamt.compile.layout import canonical_parts, layered_json, layered_parts

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = SHARED / "spec" / "examples"
SPEC_EXAMPLES = sorted(p for p in EXAMPLES.iterdir() if (p / "stream_project.yml").exists())
PROJECTS = [*SPEC_EXAMPLES, REPO / "examples" / "quickstart"]


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: p.name)
@pytest.mark.parametrize("checksums", [False, True])
def test_streamed_output_is_byte_identical_to_the_rendered_tree(tmp_path: Path, project: Path, checksums: bool) -> None:
    compiled = load_and_compile(project, "dev" if (project / "environments").is_dir() else None).compiled
    expected, expected_manifest = render(compiled)
    if checksums:
        expected[CHECKSUMS] = checksum_file(expected)
    written = write_compiled(tmp_path / "out", compiled, checksums)
    assert tree(tmp_path / "out") == expected
    assert written == sorted(expected) == output_paths(manifest(compiled), checksums)
    assert manifest(compiled) == expected_manifest
    assert manifest_checksum(expected_manifest) == sha256_checksum(canonical_json(expected_manifest))
    assert len(expected) > 1  # the manifest and at least one artifact


@pytest.mark.parametrize(
    "value",
    [{}, [], {"a": [1, {"b": []}], "c": {"d": {"e": [1, 2]}}}, [[{"x": "ü"}], {}, "s"], {"k": {}}, 3],
)
@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_layered_parts_join_to_layered_json(value: object, depth: int) -> None:
    assert "".join(layered_parts(value, depth)) == layered_json(value, depth)
    assert "".join(canonical_parts(value, depth)).encode() == canonical_json(value)
