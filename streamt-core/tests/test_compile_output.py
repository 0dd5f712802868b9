"""Output layout, manifest and atomic directory replacement."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from streamt.artifacts import Artifact
from streamt.compile import (
    MANIFEST,
    CompiledProject,
    OutputProbe,
    checksum_file,
    probe_output,
    render,
    write_compiled,
    write_output,
)
from streamt.compile.layout import file_stem
from streamt.errors import Codes, StreamtError


def compiled(*artifacts: Artifact) -> CompiledProject:
    return CompiledProject("p", "1.0.0", None, "default", artifacts)


TOPIC = Artifact("topic", "orders", "orders.v1", {"name": "orders.v1", "partitions": 3})
JOB = Artifact("flink_job", "agg", "agg", {"parallelism": 2}, files={".sql": "INSERT INTO x SELECT 1;\n"})
SUBJECT = Artifact("schema", "orders", "team/orders-value", {"subject": "team/orders-value"})


def test_artifacts_are_laid_out_as_the_seed_shows_and_listed_in_the_manifest() -> None:
    files, manifest = render(compiled(TOPIC, JOB, SUBJECT))
    assert list(files) == sorted(files)
    assert set(files) == {
        "flink/agg.json",
        "flink/agg.sql",
        "manifest.json",
        "schemas/team%2Forders-value.json",
        "topics/orders.v1.json",
    }
    assert json.loads(files["topics/orders.v1.json"]) == TOPIC.spec
    assert files["flink/agg.sql"] == b"INSERT INTO x SELECT 1;\n"
    assert json.loads(files["manifest.json"]) == manifest
    (entry,) = manifest["artifacts"]["flink_jobs"]
    assert entry["files"] == ["flink/agg.json", "flink/agg.sql"] and entry["checksum"] == JOB.checksum
    assert manifest["files"] == sorted(f for f in files if f != "manifest.json")


@pytest.mark.parametrize("identity", ["../escape", "a/b", ".hidden", "..", "x\\y", "ü"])
def test_no_identity_can_name_a_file_outside_its_directory(identity: str) -> None:
    stem = file_stem(identity)
    assert "/" not in stem and "\\" not in stem and not stem.startswith(".")


def test_names_differing_only_in_case_are_refused_before_writing() -> None:
    upper = Artifact("topic", "a", "Orders", {})
    lower = Artifact("topic", "b", "orders", {})
    with pytest.raises(StreamtError) as caught:
        render(compiled(upper, lower))
    assert caught.value.diagnostics[0].code == Codes.E111_NAME_COLLISION


def test_checksums_file_is_accepted_by_sha256sum(tmp_path: Path) -> None:
    files, _ = render(compiled(TOPIC, JOB))
    files["checksums.sha256"] = checksum_file(files)
    write_output(tmp_path / "build", files)
    run = subprocess.run(["sha256sum", "-c", "checksums.sha256"], cwd=tmp_path / "build", capture_output=True)
    assert run.returncode == 0, run.stdout + run.stderr
    (tmp_path / "build" / "topics" / "orders.v1.json").write_text("{}")
    assert subprocess.run(["sha256sum", "-c", "checksums.sha256"], cwd=tmp_path / "build").returncode != 0


def test_a_failed_write_leaves_the_previous_output_untouched(tmp_path: Path) -> None:
    target = tmp_path / "generated"
    first, _ = render(compiled(TOPIC))
    write_output(target, first)
    before = {p.relative_to(target): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    # A file and a directory of the same name cannot both be staged: the write fails midway.
    broken = {**first, "topics/zz.json": b"{}", "topics/zz.json/inner.json": b"{}"}
    with pytest.raises(StreamtError) as caught:
        write_output(target, broken)
    assert caught.value.diagnostics[0].code == Codes.E905_OUTPUT_WRITE_FAILED
    after = {p.relative_to(target): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in tmp_path.iterdir()] == ["generated"]  # no staging directory left behind


def test_output_replaces_the_previous_run_entirely(tmp_path: Path) -> None:
    target = tmp_path / "generated"
    write_output(target, render(compiled(TOPIC, JOB))[0])
    write_output(target, render(compiled(TOPIC))[0])
    assert not (target / "flink").exists()


def test_a_directory_streamt_did_not_write_is_never_replaced(tmp_path: Path) -> None:
    precious = tmp_path / "notes"
    precious.mkdir()
    (precious / "todo.txt").write_text("keep me")
    with pytest.raises(StreamtError) as caught:
        write_output(precious, render(compiled(TOPIC))[0])
    assert caught.value.diagnostics[0].code == Codes.E905_OUTPUT_WRITE_FAILED
    assert (precious / "todo.txt").read_text() == "keep me"


def test_the_project_itself_is_never_an_output_directory(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"generator": {"name": "streamt-core"}}))
    with pytest.raises(StreamtError):
        write_output(tmp_path, render(compiled(TOPIC))[0], project_root=tmp_path / "sub")
    with pytest.raises(StreamtError):
        write_output(tmp_path, render(compiled(TOPIC))[0], project_root=tmp_path)
    assert os.listdir(tmp_path) == ["manifest.json"]


def test_a_probe_taken_before_the_compile_decides_only_while_the_manifest_is_the_same_file(tmp_path: Path) -> None:
    target = tmp_path / "generated"
    write_compiled(target, compiled(TOPIC), False)
    probe = probe_output(target)
    assert probe is not None and probe.written_by_streamt
    write_compiled(target, compiled(TOPIC, JOB), False, probe=probe)
    assert (target / "flink" / "agg.json").exists()
    stale = probe_output(target)
    assert stale is not None
    (target / MANIFEST).write_text(json.dumps({"generator": {"name": "someone-else"}}))
    with pytest.raises(StreamtError) as caught:
        write_compiled(target, compiled(TOPIC), False, probe=stale)
    assert caught.value.diagnostics[0].code == Codes.E905_OUTPUT_WRITE_FAILED
    # While the file is unchanged the verdict is the probe's, not a second parse.
    trusted = OutputProbe(probe_output(target).stamp, True)  # type: ignore[union-attr]
    write_compiled(target, compiled(TOPIC), False, probe=trusted)
    assert json.loads((target / MANIFEST).read_text())["generator"]["name"] == "streamt-core"


def test_the_writer_check_reads_only_the_generator_of_a_manifest(tmp_path: Path) -> None:
    target = tmp_path / "generated"
    target.mkdir()
    for text, verdict in [
        ('{"artifacts": {"x": [{"name": "n", "generator": 1}]}, "generator": {"name": "streamt-core"}}', True),
        ('{"generator": {"name": "streamt-core"}, "generator": {"name": "other"}}', False),
        ('{"generator": {"name": {"name": "streamt-core"}}}', False),
        ('[{"generator": {"name": "streamt-core"}}]', False),
        ('{"generator": {"name": "streamt-core"}', False),
    ]:
        (target / MANIFEST).write_text(text)
        probe = probe_output(target)
        assert probe is not None and probe.written_by_streamt is verdict, text
    assert probe_output(tmp_path / "missing") is None


def test_a_manifest_of_more_than_16_mb_still_marks_the_directory_as_streamt_s(tmp_path: Path) -> None:
    # 10,000 models make a ~21 MB manifest; the first 16 MB of it are not JSON.
    target = tmp_path / "generated"
    target.mkdir()
    (target / MANIFEST).write_text(json.dumps({"files": ["x" * 1000] * 17_000, "generator": {"name": "streamt-core"}}))
    write_compiled(target, compiled(TOPIC), False)
    assert json.loads((target / MANIFEST).read_text())["files"] == ["topics/orders.v1.json"]
