"""`runtime build` without an engine: the dry-run hash, option checks, E406 before anything else."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from streamt.errors import StreamtError
from streamt_kstreams import build
from streamt_kstreams.commands import build_command

DIGEST = "sha256:" + "a" * 64


def test_dry_run_hashes_the_packaged_inputs_only() -> None:
    first, second = build.dry_run(None), build.dry_run(DIGEST)
    assert first["build_input_hash"] == second["build_input_hash"]  # the base is a label, not an input
    assert first["build_input_hash"].startswith("sha256:")
    assert first["inputs"] == ["Dockerfile", "pom.xml", "src/main/java/io/streamt/runner/Runner.java"]
    assert first["image"] is None


def test_input_hash_changes_with_any_byte_and_ignores_maven_output(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").write_text("<project/>")
    before = build.input_hash(build.packaged_inputs(tmp_path))
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "streamt-runner.jar").write_bytes(b"jar")
    assert build.input_hash(build.packaged_inputs(tmp_path)) == before
    (tmp_path / "pom.xml").write_text("<project />")
    assert build.input_hash(build.packaged_inputs(tmp_path)) != before


@pytest.mark.parametrize("reference", ["eclipse-temurin:17-jre", "sha256:abc", "repo@sha256:" + "A" * 64])
def test_a_tag_or_short_id_is_refused(reference: str) -> None:
    with pytest.raises(StreamtError) as caught:
        build.check_base_image(reference)
    assert caught.value.diagnostics[0].code.code == "E501_PARSE_ERROR"


def test_without_a_base_image_the_pinned_digest_is_used() -> None:
    assert build.check_base_image(None) == build.PINNED and "@sha256:" in build.PINNED
    assert build.dry_run(None)["base_image"] == build.PINNED
    unset = {"STREAMT_RUNNER_BASE_IMAGE": None, "STREAMT_KSTREAMS_BASE_IMAGE": None}
    text = CliRunner().invoke(build_command, ["--dry-run"], standalone_mode=False, env=unset).return_value.text
    assert f"Base image:   {build.PINNED}" in text


def test_an_unreachable_engine_is_e406_and_names_no_host(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    secret_host = f"unix://{tmp_path}/user:hunter2@nowhere.sock"
    monkeypatch.setenv("DOCKER_HOST", secret_host)
    with pytest.raises(StreamtError) as caught:
        build.build(DIGEST, 60)
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.code.code == "E406_CONNECTION_REFUSED"
    assert "hunter2" not in diagnostic.message + (diagnostic.suggestion or "")
    assert not list(tmp_path.iterdir())  # no file written before the engine answered


def test_timeout_is_bounded_by_the_cli() -> None:
    for value in ("29", "1801"):
        outcome = CliRunner().invoke(build_command, ["--timeout", value, "--dry-run"], standalone_mode=False)
        assert outcome.exception is not None


def test_build_context_is_deterministic(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "streamt-runner.jar").write_bytes(b"runner")
    for name in ("b.jar", "a.jar"):
        (tmp_path / "lib" / name).write_bytes(name.encode())
    one = build.context_tar(tmp_path, b"FROM x")
    assert one == build.context_tar(tmp_path, b"FROM x")
    with tarfile.open(fileobj=io.BytesIO(one)) as tar:
        assert tar.getnames() == ["Dockerfile", "streamt-runner.jar", "lib/a.jar", "lib/b.jar"]
        assert {m.mtime for m in tar.getmembers()} == {0}


@pytest.mark.parametrize("variable", ["STREAMT_RUNNER_BASE_IMAGE", "STREAMT_KSTREAMS_BASE_IMAGE"])
def test_the_base_image_variable_the_devstack_exports_is_read(variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # `./dev stack env` exports both; the second is the name it exported before, kept working.
    for name in ("STREAMT_RUNNER_BASE_IMAGE", "STREAMT_KSTREAMS_BASE_IMAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, DIGEST)
    outcome = CliRunner().invoke(build_command, ["--dry-run"], standalone_mode=False)
    assert outcome.exception is None and outcome.return_value.data["base_image"] == DIGEST
