"""Which files make up a project, and the bounds on reading them, for both sides of a comparison.

Exactly the files ``streamt.project.loader`` reads, minus ``.env`` files: a snapshot is declared
configuration, so secrets are never needed (placeholders stay placeholders, see ``snapshot``).
The working tree is read through the same selection and bounds as a Git ref, so both sides of a
comparison are the same kind of thing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from streamt.sdk import DECLARATION_DIRS, MAX_PROJECT_FILE_BYTES, PROJECT_FILES, StreamtError

from streamt_impact.codes import GIT_READ_FAILED

MAX_FILE_BYTES = MAX_PROJECT_FILE_BYTES  # the loader's own limit: both sides read what it would
MAX_FILES = 20_000
MAX_TOTAL_BYTES = 128 * 1024 * 1024
_YAML = (".yml", ".yaml")

__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "MAX_TOTAL_BYTES", "is_project_file", "project_pathspecs", "working_tree"]


def is_project_file(path: str) -> bool:
    """``path`` is project-relative with ``/`` separators."""
    if path in PROJECT_FILES:
        return True
    folder, _, rest = path.partition("/")
    if not rest or not rest.endswith(_YAML):
        return False
    if folder == "environments":
        return "/" not in rest  # environment files are read from the folder itself, not below it
    return folder in DECLARATION_DIRS


def project_pathspecs() -> list[str]:
    return [*PROJECT_FILES, "environments", *DECLARATION_DIRS]


def _refuse(message: str, path: str) -> StreamtError:
    return StreamtError(
        GIT_READ_FAILED, message, "Replace the link or file with a regular file.", details={"path": path}
    )


def _inside(target: Path, real_root: Path) -> bool:
    """``target`` is a project file or sits in a declaration folder: what a ref's link may point at."""
    if not target.is_relative_to(real_root):
        return False
    relative = target.relative_to(real_root).as_posix()
    return relative in PROJECT_FILES or relative.split("/", 1)[0] in ("environments", *DECLARATION_DIRS)


def working_tree(root: Path) -> dict[str, bytes]:
    """The project's files on disk, under the same selection and bounds as a Git ref.

    A symlink is followed only when it resolves to a project file or into a declaration folder, as at a ref.
    """
    real_root = root.resolve()
    candidates = [name for name in PROJECT_FILES if (root / name).exists() or (root / name).is_symlink()]
    for folder in ("environments", *DECLARATION_DIRS):
        base = root / folder
        if not base.is_dir():
            continue
        for directory, subdirs, names in os.walk(base, followlinks=False):
            subdirs.sort()
            for name in sorted(names):
                relative = (Path(directory) / name).relative_to(root).as_posix()
                if is_project_file(relative):
                    candidates.append(relative)
    if len(candidates) > MAX_FILES:
        raise _refuse(f"The project has more than {MAX_FILES:,} files.", str(root))
    files: dict[str, bytes] = {}
    total = 0
    for relative in sorted(candidates):
        path = root / relative
        target = path.resolve()
        if not _inside(target, real_root):
            raise _refuse(
                f"{relative} links outside the project's declaration files; links out of the tree are refused.",
                relative,
            )
        try:
            info = os.stat(target)
        except OSError as exc:
            raise _refuse(f"{relative} cannot be read ({exc.strerror or 'unreadable'}).", relative) from None
        if not stat.S_ISREG(info.st_mode):
            continue
        if info.st_size > MAX_FILE_BYTES:
            raise _refuse(f"{relative} is {info.st_size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit.", relative)
        total += info.st_size
        if total > MAX_TOTAL_BYTES:
            raise _refuse(f"The project holds more than {MAX_TOTAL_BYTES:,} bytes of declarations.", str(root))
        with open(target, "rb") as handle:
            files[relative] = handle.read(MAX_FILE_BYTES + 1)
    return files
