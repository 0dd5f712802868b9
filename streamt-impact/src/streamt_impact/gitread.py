"""Read a project's declaration files at a Git ref, running nothing from the repository.

The ``git`` CLI is used, never a checkout: ``rev-parse`` resolves the ref, ``ls-tree`` lists the
entries and ``cat-file --batch`` prints raw blob bytes. None of those three runs hooks, clean/smudge
filters, textconv drivers, LFS or submodule commands; what could still start a program is switched
off on every call (``GIT_ENV`` and ``LOCKDOWN``): system and global config are not read, the
fsmonitor and hooks path are overridden, no transport is allowed (so a partial clone cannot
lazy-fetch a missing blob through a configured remote helper), no pager, no prompt, no replace
objects, and every inherited ``GIT_*`` variable is dropped so a caller's ``GIT_DIR`` or
``GIT_CONFIG_PARAMETERS`` cannot redirect it. Sizes come from ``ls-tree -l`` before any blob is
read, so the file-count and byte bounds hold before the bytes exist in memory.
"""

from __future__ import annotations

import os
import posixpath
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from streamt.sdk import StreamtError

from streamt_impact.codes import GIT_READ_FAILED
from streamt_impact.files import MAX_FILE_BYTES, MAX_FILES, MAX_TOTAL_BYTES, is_project_file, project_pathspecs

LOCKDOWN = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "protocol.allow=never",
    "-c",
    "core.pager=cat",
    "--no-pager",
    "--no-replace-objects",
    "--literal-pathspecs",
)
GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_LITERAL_PATHSPECS": "1",
    "GIT_PAGER": "cat",
    "LC_ALL": "C",
}
TIMEOUT_SECONDS = 120
MAX_REF_LENGTH = 256
MAX_SYMLINK_HOPS = 8
_COMMIT = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_MODE_FILE = ("100644", "100755")
_MODE_LINK = "120000"
_MODE_GITLINK = "160000"


def git_error(message: str, suggestion: str, **details: object) -> StreamtError:
    return StreamtError(GIT_READ_FAILED, message, suggestion, details=dict(details))


def _environment() -> dict[str, str]:
    kept = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {**kept, **GIT_ENV}


def _executable() -> str:
    found = shutil.which("git")
    if found is None:
        raise git_error("The 'git' program is not installed.", "Install Git (2.24 or newer) to compare refs.")
    return found


def run_git(cwd: Path, args: Sequence[str], stdin: bytes | None = None) -> bytes:
    """``git <LOCKDOWN> <args>`` in ``cwd``; its stdout, or E510 with git's first stderr line."""
    argv = [_executable(), *LOCKDOWN, *args]
    try:
        done = subprocess.run(
            argv, cwd=cwd, input=stdin, capture_output=True, env=_environment(), timeout=TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise git_error(f"git {args[0]} could not run ({type(exc).__name__}).", "Check the Git installation.") from None
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        first = (stderr.strip().splitlines() or ["no message"])[0]
        suggestion = "Check the repository and the ref."
        if "promisor" in stderr:
            # A partial clone lacks the blob; fetching it would run a transport, which is never allowed here.
            suggestion = "This partial clone lacks the files of that ref: fetch it without --filter first."
        raise git_error(f"git {args[0]} failed: {first[:300]}", suggestion)
    return done.stdout


def validate_ref(ref: str) -> str:
    """Refuse what could be read as an option or is not a ref/commit expression at all."""
    if not ref or len(ref) > MAX_REF_LENGTH:
        raise git_error("The Git ref is empty or too long.", "Pass a branch, tag or commit, e.g. --base origin/main.")
    if ref.startswith("-"):
        raise git_error(
            f"The Git ref {ref!r} starts with '-' and could be read as an option; it is refused.",
            "Pass a branch, tag or commit name that does not start with '-'.",
            ref=ref,
        )
    if any(ord(c) < 0x20 or c == "\x7f" for c in ref) or " " in ref:
        raise git_error("The Git ref contains spaces or control characters.", "Pass a plain ref name.", ref=ref)
    return ref


class Repository:
    """The Git repository holding a project directory, and where the project sits inside it."""

    def __init__(self, top: Path, prefix: str) -> None:
        self.top = top
        self.prefix = prefix  # "" or "examples/quickstart/" (always with a trailing slash)

    @classmethod
    def containing(cls, project_dir: Path) -> Repository:
        if not project_dir.is_dir():
            raise git_error(
                f"Project directory not found: {project_dir}", "Pass --project-dir to a directory in a Git clone."
            )
        out = run_git(project_dir, ["rev-parse", "--show-toplevel", "--show-prefix"]).decode("utf-8", "replace")
        lines = out.split("\n")
        if len(lines) < 2 or not lines[0]:
            raise git_error(
                f"{project_dir} is not inside a Git working tree.", "Run impact from a clone of the repository."
            )
        return cls(Path(lines[0]), lines[1])

    def resolve(self, ref: str) -> str:
        """The full commit id ``ref`` names; E510 when it names none (missing, or cut off by a shallow clone)."""
        validate_ref(ref)
        try:
            out = run_git(self.top, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"])
        except StreamtError:
            raise git_error(
                f"Git ref {ref!r} does not name a commit in this repository.",
                "Fetch it first (in CI: actions/checkout with fetch-depth: 0, or git fetch origin <branch>).",
                ref=ref,
            ) from None
        commit = out.decode("ascii", "replace").strip()
        if not _COMMIT.match(commit):
            raise git_error(f"Git answered no commit id for {ref!r}.", "Pass a branch, tag or commit.", ref=ref)
        return commit

    def project_files(self, commit: str) -> dict[str, bytes]:
        """Project-relative path -> bytes of every declaration file at ``commit`` (bounded, links resolved)."""
        entries = self._entries(commit)
        chosen: dict[str, str] = {}
        total = 0
        for path in sorted(entries):
            if not is_project_file(path):
                continue
            mode, oid, size = entries[path]
            if mode == _MODE_GITLINK:
                continue  # a submodule is never entered; its declarations are not this project's
            if mode == _MODE_LINK:
                oid, size = self._follow(path, entries)
            if size > MAX_FILE_BYTES:
                raise git_error(
                    f"{path} at {commit[:12]} is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit per file.",
                    "Split the file; project files are small YAML documents.",
                    path=path,
                )
            total += size
            chosen[path] = oid
            if len(chosen) > MAX_FILES or total > MAX_TOTAL_BYTES:
                raise git_error(
                    f"The project at {commit[:12]} has more than {MAX_FILES:,} files or "
                    f"{MAX_TOTAL_BYTES:,} bytes of declarations.",
                    "Point --project-dir at the project itself, not at a larger tree.",
                )
        blobs = self._read_blobs(sorted(set(chosen.values())))
        return {path: blobs[oid] for path, oid in chosen.items()}

    def _entries(self, commit: str) -> dict[str, tuple[str, str, int]]:
        specs = [self.prefix + spec for spec in project_pathspecs()]
        out = run_git(self.top, ["ls-tree", "-r", "-z", "-l", "--full-tree", commit, "--", *specs])
        entries: dict[str, tuple[str, str, int]] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, kind, oid, size = meta.decode("ascii", "replace").split()
            path = raw_path.decode("utf-8", "surrogateescape")
            if not path.startswith(self.prefix):
                continue
            if len(entries) >= MAX_FILES * 4:
                raise git_error(
                    f"The declaration folders at {commit[:12]} hold more than {MAX_FILES * 4:,} entries.",
                    "Point --project-dir at the project itself.",
                )
            if mode not in (*_MODE_FILE, _MODE_LINK, _MODE_GITLINK) or (mode != _MODE_GITLINK and kind != "blob"):
                continue
            entries[path[len(self.prefix) :]] = (mode, oid, int(size) if size.isdigit() else 0)
        return entries

    def _follow(self, path: str, entries: dict[str, tuple[str, str, int]]) -> tuple[str, int]:
        """The blob a symlink ends at, if it stays inside the project; refused otherwise."""
        current = path
        for _ in range(MAX_SYMLINK_HOPS):
            mode, oid, size = entries[current]
            if mode != _MODE_LINK:
                return oid, size
            if size > 4096:
                raise git_error(f"Symlink {path} has an oversized target.", "Replace the symlink with the file.")
            target = self._read_blobs([oid])[oid].decode("utf-8", "surrogateescape")
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
            if target.startswith("/") or joined == ".." or joined.startswith("../") or joined not in entries:
                raise git_error(
                    f"Symlink {path} points outside the project's declaration files ({target!r}); "
                    "links out of the tree are refused.",
                    "Replace the symlink with the file itself.",
                    path=path,
                )
            current = joined
        raise git_error(f"Symlink {path} is part of a chain of more than {MAX_SYMLINK_HOPS} links.", "Remove the loop.")

    def _read_blobs(self, oids: list[str]) -> dict[str, bytes]:
        if not oids:
            return {}
        out = run_git(self.top, ["cat-file", "--batch"], stdin="".join(f"{oid}\n" for oid in oids).encode())
        blobs: dict[str, bytes] = {}
        at = 0
        for oid in oids:
            end = out.index(b"\n", at)
            header = out[at:end].decode("ascii", "replace").split()
            if len(header) != 3 or header[0] != oid or header[1] != "blob":
                raise git_error(f"Git object {oid} is not a readable blob.", "Check the repository (git fsck).")
            size = int(header[2])
            blobs[oid] = out[end + 1 : end + 1 + size]
            at = end + 1 + size + 1
        return blobs
