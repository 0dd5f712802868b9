"""Hostile repositories: the Git reader runs nothing from the repository and refuses what it cannot read safely.

Each trap is shown to be armed (an ordinary git command in the same repository springs it), so a
test that finds no marker after ``streamt impact`` could fail if the reader let the trap run.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from streamt.cli import run

sys.path.insert(0, str(Path(__file__).parent))
from history import CLEAN, EXPOSURES, PROJECT_FILE, REVENUE, SOURCES, git  # the scripted project

FILES = {
    "stream_project.yml": PROJECT_FILE,
    "sources/orders.yml": SOURCES,
    "models/clean.yml": CLEAN,
    "models/revenue.yml": REVENUE,
    "exposures/apps.yml": EXPOSURES,
}


def invoke(*args: str | Path) -> tuple[int, dict]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = run(["-o", "json", *map(str, args)], stdout=stdout, stderr=stderr)
    return code, json.loads(stdout.getvalue())


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    commit(root, files or FILES, "base")
    return root


def commit(root: Path, files: dict[str, str], subject: str) -> str:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", subject)
    return git(root, "rev-parse", "HEAD")


def error_of(outcome: tuple[int, dict]) -> dict:
    code, envelope = outcome
    assert code == 1 and envelope["status"] == "error", envelope
    assert "Traceback" not in json.dumps(envelope)
    return envelope["errors"][0]


def trap(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A program that writes ``marker`` when run, and the marker path."""
    marker = tmp_path / f"{name}.marker"
    program = tmp_path / f"{name}.sh"
    program.write_text(f"#!/bin/sh\necho ran >> '{marker}'\ncat\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return program, marker


def test_option_like_refs_are_refused_before_git_sees_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    program, marker = trap(tmp_path, "option")
    for ref in (f"--upload-pack={program}", "-c", "--output=/tmp/x", "--exec-path=/tmp"):
        error = error_of(invoke("impact", "-p", repo, f"--base={ref}"))
        assert error["code"] == "E510_GIT_READ_FAILED" and "starts with '-'" in error["message"]
        error = error_of(invoke("impact", "-p", repo, "--base", "HEAD", f"--head={ref}"))
        assert error["code"] == "E510_GIT_READ_FAILED"
    assert error_of(invoke("impact", "-p", repo, "--base", "HEAD\nx"))["code"] == "E510_GIT_READ_FAILED"
    assert not marker.exists()


def test_config_filters_fsmonitor_textconv_hooks_and_remotes_run_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    base = git(repo, "rev-parse", "HEAD")
    head = commit(repo, {"models/clean.yml": CLEAN.replace("key: order_id", "key: customer_id")}, "key")
    program, marker = trap(tmp_path, "config")
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-checkout", "reference-transaction", "post-index-change", "pre-auto-gc"):
        (hooks / hook).write_text(f"#!/bin/sh\necho hook >> '{marker}'\n")
        (hooks / hook).chmod(0o755)
    (repo / ".gitattributes").write_text("*.yml filter=evil diff=evil merge=evil\n")
    with open(repo / ".git" / "config", "a") as handle:
        handle.write(
            f"[core]\n\tfsmonitor = {program}\n\thooksPath = {hooks}\n\tpager = {program}\n"
            f"\tsshCommand = {program}\n\talternateRefsCommand = {program}\n"
            f'[filter "evil"]\n\tclean = {program}\n\tsmudge = {program}\n\tprocess = {program}\n\trequired = true\n'
            f'[diff "evil"]\n\ttextconv = {program}\n\tcommand = {program}\n'
            f"[gpg]\n\tprogram = {program}\n"
            f'[remote "origin"]\n\turl = ext::{program}\n\tpromisor = true\n'
            "[extensions]\n\tpartialClone = origin\n"
        )
    outcomes = [
        invoke("impact", "-p", repo, "--base", base, "--head", head),
        invoke("impact", "-p", repo, "--base", base),  # the working tree side too
        invoke("impact", "-p", repo, "--base", base, "--head", head, "--format", "markdown"),
    ]
    for code, envelope in outcomes:
        assert code == 0, envelope
        assert [c["name"] for c in envelope["data"]["changes"]] == ["orders_clean"]
    assert not marker.exists(), marker.read_text()
    # The trap is armed: an ordinary git command in this repository runs the fsmonitor program.
    subprocess.run(
        ["git", "status"],
        cwd=repo,
        capture_output=True,
        check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    )
    assert marker.exists()


def test_inherited_git_environment_cannot_redirect_the_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    other = make_repo(tmp_path / "other", {**FILES, "models/clean.yml": CLEAN.replace("Valid orders", "Other")})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='/bin/false'")
    code, envelope = invoke("impact", "-p", repo, "--base", "HEAD")
    assert code == 0 and envelope["data"]["changes"] == [], envelope


def test_oversized_files_too_many_files_and_too_many_bytes_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo")
    commit(repo, {"models/big.yml": "# padding\n" * 300}, "big")
    import streamt_impact.gitread as gitread

    monkeypatch.setattr(gitread, "MAX_FILE_BYTES", 2000)
    error = error_of(invoke("impact", "-p", repo, "--base", "HEAD"))
    assert error["code"] == "E510_GIT_READ_FAILED" and "models/big.yml" in error["message"]
    assert "2,000-byte limit" in error["message"]
    monkeypatch.undo()
    monkeypatch.setattr(gitread, "MAX_FILES", 3)
    assert "more than 3 files" in error_of(invoke("impact", "-p", repo, "--base", "HEAD"))["message"]
    monkeypatch.undo()
    monkeypatch.setattr(gitread, "MAX_TOTAL_BYTES", 3000)
    assert "3,000 bytes" in error_of(invoke("impact", "-p", repo, "--base", "HEAD"))["message"]


def test_symlinks_out_of_the_tree_are_refused_and_in_tree_links_are_read(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (tmp_path / "secret.yml").write_text("models: []\n")
    for name, target in (("outside", str(tmp_path / "secret.yml")), ("parent", "../../secret.yml")):
        link = repo / "models" / f"{name}.yml"
        link.symlink_to(target)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", name)
        error = error_of(invoke("impact", "-p", repo, "--base", "HEAD~1", "--head", "HEAD"))
        assert error["code"] == "E510_GIT_READ_FAILED" and f"models/{name}.yml" in error["message"]
        assert "outside the project" in error["message"]
        error = error_of(invoke("impact", "-p", repo, "--base", "HEAD~1"))  # the working tree refuses it too
        assert error["code"] == "E510_GIT_READ_FAILED"
        link.unlink()
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"drop {name}")
    (repo / "models" / "revenue.yml").unlink()
    (repo / "models" / "revenue.yml").symlink_to("../shared.yml")  # outside models/, inside the project
    (repo / "shared.yml").write_text(REVENUE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "link to a non-project file")
    assert error_of(invoke("impact", "-p", repo, "--base", "HEAD"))["code"] == "E510_GIT_READ_FAILED"
    error = error_of(invoke("impact", "-p", repo, "--base", "HEAD~1"))  # the working tree: the same rule
    assert error["code"] == "E510_GIT_READ_FAILED"
    (repo / "models" / "revenue.yml").unlink()
    (repo / "models" / "revenue.yml").symlink_to("gone.yml")  # dangling, in the working tree only
    error = error_of(invoke("impact", "-p", repo, "--base", "HEAD~1"))
    assert error["code"] == "E510_GIT_READ_FAILED" and "cannot be read" in error["message"]
    (repo / "models" / "revenue.yml").unlink()
    (repo / "shared.yml").unlink()
    (repo / "models" / "real").mkdir()
    (repo / "models" / "real" / "revenue.txt").write_text(REVENUE)  # not a declaration file by itself
    (repo / "models" / "revenue.yml").symlink_to("real/revenue.txt")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "in-tree link")
    code, envelope = invoke("impact", "-p", repo, "--base", "HEAD")
    assert code == 0 and envelope["data"]["changes"] == [], envelope


def test_missing_refs_and_non_repositories_are_clear_errors(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    error = error_of(invoke("impact", "-p", repo, "--base", "no-such-branch"))
    assert error["code"] == "E510_GIT_READ_FAILED"
    assert "'no-such-branch' does not name a commit" in error["message"] and "fetch" in error["suggestion"]
    error = error_of(invoke("impact", "-p", repo, "--base", "HEAD", "--head", "0" * 40))
    assert error["code"] == "E510_GIT_READ_FAILED"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "stream_project.yml").write_text(PROJECT_FILE)
    assert error_of(invoke("impact", "-p", plain, "--base", "HEAD"))["code"] == "E510_GIT_READ_FAILED"
    assert error_of(invoke("impact", "-p", repo))["code"] == "E900_USAGE_ERROR"  # --base is required


def test_a_shallow_clone_works_when_the_base_commit_is_present(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    commit(repo, {"models/clean.yml": CLEAN.replace("Valid orders", "one")}, "one")
    commit(repo, {"models/clean.yml": CLEAN.replace("Valid orders", "two")}, "two")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{repo}", str(clone))
    code, envelope = invoke("impact", "-p", clone, "--base", "HEAD~1", "--head", "HEAD")
    assert code == 0 and [c["name"] for c in envelope["data"]["changes"]] == ["orders_clean"]
    error = error_of(invoke("impact", "-p", clone, "--base", "HEAD~2"))
    assert error["code"] == "E510_GIT_READ_FAILED" and "fetch" in error["suggestion"]


def test_a_snapshot_needs_no_secret_and_never_reads_dotenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo", {**FILES, ".env": "KAFKA_BOOTSTRAP=secret-host:9092\n"})
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    code, envelope = invoke("impact", "-p", repo, "--base", "HEAD", "--format", "json")
    assert code == 0, envelope
    assert "secret-host" not in json.dumps(envelope)
    from streamt_impact.gitread import Repository
    from streamt_impact.snapshot import Side, take

    repository = Repository.containing(repo)
    commit_id = repository.resolve("HEAD")
    snapshot = take(Side("base", "HEAD", commit_id), repository.project_files(commit_id), None)
    assert snapshot.project.runtime.kafka.bootstrap_servers == "${KAFKA_BOOTSTRAP}"


def test_a_partial_clone_never_fetches_a_missing_blob(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    commit(repo, {"models/clean.yml": CLEAN.replace("Valid orders", "one")}, "one")
    git(repo, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{repo}", str(clone))  # checks out HEAD's blobs only
    error = error_of(invoke("impact", "-p", clone, "--base", "HEAD~1"))
    assert error["code"] == "E510_GIT_READ_FAILED" and "not allowed" in error["message"]
    assert "without --filter" in error["suggestion"]
