"""The streamed writer (one artifact rendered at a time) writes exactly the bytes of the in-memory ``render``.

``compile`` and ``build`` write with ``write_compiled`` and plans bind to ``manifest`` alone; ``render``
builds the whole tree in memory and is the reference here, on every spec example (topics, schemas,
Flink jobs with their ``.sql``, connectors, Gateway rules, Kafka Streams jobs) and the quickstart.
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shared_material import SHARED
from streamt.artifacts import Artifact, canonical_json, sha256_checksum
from streamt.compile import (
    CHECKSUMS,
    CompiledProject,
    checksum_file,
    checksummed_manifest,
    load_and_compile,
    manifest,
    manifest_checksum,
    output_paths,
    render,
    write_compiled,
)
from streamt.compile.layout import (
    artifact_files,
    artifact_texts,
    canonical_parts,
    layered_json,
    manifest_with_files,
)

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
    assert checksummed_manifest(compiled) == (expected_manifest, manifest_checksum(expected_manifest))
    assert len(expected) > 1  # the manifest and at least one artifact


@pytest.mark.parametrize(
    "value",
    [{}, [], {"a": [1, {"b": []}], "c": {"d": {"e": [1, 2]}}}, [[{"x": "ü"}], {}, "s"], {"k": {}}, 3],
)
@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_canonical_parts_join_to_canonical_json(value: object, depth: int) -> None:
    assert "".join(canonical_parts(value, depth)).encode() == canonical_json(value)


_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_specs = st.dictionaries(
    st.text(max_size=3) | st.integers(),
    st.recursive(
        _scalars,
        lambda inner: st.lists(inner, max_size=3) | st.tuples(inner) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=12,
    ),
    max_size=5,
)


def _compact_reference(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_specs, st.lists(_specs, max_size=3))
def test_one_encoding_gives_the_file_and_the_manifest_line_of_each_spec(spec: dict, others: list[dict]) -> None:
    artifact = Artifact("flink_job", "m", "m", spec, files={".sql": "SELECT 1;\n"})
    try:
        expected = artifact_files(artifact), _compact_reference(spec)
    except TypeError:  # keys of mixed types cannot be sorted: refused alike
        with pytest.raises(TypeError):
            artifact_texts(artifact)
        return
    assert artifact_texts(artifact) == expected
    artifacts = (artifact, *(Artifact("topic", f"t{i}", f"t{i}", other) for i, other in enumerate(others)))
    project = CompiledProject("p", "1", None, "dev", artifacts)
    try:
        listed = manifest(project)
    except TypeError:
        return
    fresh = CompiledProject("p", "1", None, "dev", tuple(attrs.evolve(a) for a in artifacts))  # none checksummed yet
    assert checksummed_manifest(fresh) == (listed, manifest_checksum(listed))
    assert [a.checksum for a in fresh.artifacts] == [a.checksum for a in artifacts]
    pieces = list(manifest_with_files(listed, project))
    assert "".join(text for text, _ in pieces) == layered_json(listed, 3)
    assert [path for _, files in pieces for path in files] == [p for a in artifacts for p in artifact_files(a)]
    assert {path: data for _, files in pieces for path, data in files.items()} == {
        path: data for a in artifacts for path, data in artifact_files(a).items()
    }
