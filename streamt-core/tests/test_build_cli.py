"""`streamt build`: artifacts + manifest.json + checksums.sha256 that `sha256sum -c` accepts."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

from shared_material import SHARED
from streamt.cli import run
from streamt_testing import run_cli

EXAMPLES = SHARED / "spec" / "examples"


def test_build_defaults_to_build_in_the_project_and_verifies_with_sha256sum(tmp_path: Path) -> None:
    project = tmp_path / "payments"
    shutil.copytree(EXAMPLES / "payments-pipeline", project)
    outcome = run_cli("build", "--project-dir", project)
    assert outcome.ok, outcome.envelope
    build = project / "build"
    assert outcome.data["checksums"] == f"{build}/checksums.sha256"
    listed = (build / "checksums.sha256").read_text().splitlines()
    assert [line.split("  ", 1)[1] for line in listed] == sorted(
        f for f in outcome.data["files"] if f != "checksums.sha256"
    )
    check = subprocess.run(["sha256sum", "--strict", "-c", "checksums.sha256"], cwd=build, capture_output=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert any(line.startswith("flink/") and line.endswith(".sql") for line in outcome.data["files"])


def test_build_text_output_names_manifest_and_checksums(tmp_path: Path) -> None:
    out = io.StringIO()
    code = run(["build", "--project-dir", str(EXAMPLES / "minimal-topic"), "--output-dir", str(tmp_path / "d")], out)
    lines = out.getvalue().splitlines()
    assert code == 0
    assert lines[0] == "Building project..." and "  topics/web.clicks.retry.v1.json" in lines
    assert lines[-2:] == [f"Manifest: {tmp_path / 'd'}/manifest.json", f"Checksums: {tmp_path / 'd'}/checksums.sha256"]


def test_build_refuses_to_replace_a_directory_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("mine")
    outcome = run_cli("build", "--project-dir", EXAMPLES / "minimal-topic", "--output-dir", tmp_path / "docs")
    assert outcome.error_codes == ["E905_OUTPUT_WRITE_FAILED"]
    assert (tmp_path / "docs" / "index.md").read_text() == "mine"
