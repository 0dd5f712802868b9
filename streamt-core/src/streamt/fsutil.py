"""Crash-safe file output.

Everything streamt writes goes through here: a file is written to a temporary
sibling, flushed and fsynced, then renamed over the target, and the directory
is fsynced so the rename itself survives a crash. Readers see the old bytes or
the new bytes, never a mixture.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

MAX_FILE_NAME_BYTES = 255  # what file systems hold in one path component (ext4, XFS, APFS, NTFS in UTF-16 units)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _staged_file(path: Path, data: bytes, mode: int) -> Iterator[str]:
    """A durable temporary sibling of ``path`` holding ``data``, removed afterwards if still there."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        yield tmp
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _staged_file(path, data, mode) as tmp:
        os.replace(tmp, path)
    fsync_dir(path.parent)


def create_exclusive(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Create ``path`` with ``data``; fail with ``FileExistsError`` if it exists.

    The file appears complete or not at all: it is staged under a temporary
    name and hard-linked into place, which fails if anything (a file or a
    symlink) already has the name.
    """
    path = Path(path)
    with _staged_file(path, data, mode) as tmp:
        os.link(tmp, path)
    fsync_dir(path.parent)


def sync_tree(root: Path) -> None:
    """Make every file and directory below ``root`` durable.

    Where the C library has ``syncfs(2)`` (Linux) this is one call for the
    file system holding ``root``: fsyncing each file of a 15,000-file compile
    output one by one takes tens of seconds. Elsewhere, each file and
    directory is fsynced.
    """
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if _syncfs(fd):
            return
    finally:
        os.close(fd)
    for directory, _dirs, files in os.walk(root):
        for name in files:
            with open(os.path.join(directory, name), "rb") as handle:
                os.fsync(handle.fileno())
        fsync_dir(Path(directory))


def _syncfs(fd: int) -> bool:
    try:
        import ctypes

        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return False
    return bool(syncfs(fd) == 0)


@contextlib.contextmanager
def staged_directory(target: Path) -> Iterator[Path]:
    """Yield an empty staging directory that replaces ``target`` on success.

    Fill the yielded directory; when the ``with`` block ends without an
    exception the previous ``target`` is swapped out and removed. On an
    exception the staging directory is removed and ``target`` is untouched,
    so a failed compile never leaves a half-written output directory.

    The swap is two renames (the stdlib has no RENAME_EXCHANGE): a crash
    between them leaves the previous output intact under ``.<name>.old.*``
    and no ``target``, never a partial one.
    """
    target = Path(target).absolute()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.staging.", dir=target.parent))
    try:
        yield staging
        sync_tree(staging)
        if target.exists() or target.is_symlink():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            os.rmdir(old)
            os.rename(target, old)
            os.rename(staging, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(staging, target)
        fsync_dir(target.parent)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
