"""Where generated declarations go, and how they get there safely.

The output must be one YAML file directly in the project's ``sources/``
(``E704``). Before anything is written, the project is copied to a private
staging directory together with the new file and validated: an error that the
project did not have before is ``E705``. The file is then created with
no-replace semantics (``fsutil.create_exclusive``): an existing target is
``E702`` and never changed.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from streamt.errors import Codes, Diagnostic, StreamtError

DEFAULT_OUTPUT = "sources/imported.kafka.yml"


def output_path(root: Path, requested: str) -> Path:
    """The absolute target for ``--output-file``, or ``E704``."""
    raw = Path(requested)
    sources = root.absolute() / "sources"
    path = raw if raw.is_absolute() else root.absolute() / raw
    problem = None
    if ".." in raw.parts:
        problem = "must not contain '..'"
    elif path.parent != sources and path.parent.resolve() != sources.resolve():
        problem = "must be directly inside the project's sources/ directory"
    elif not path.name.endswith((".yml", ".yaml")) or path.name.startswith("."):
        problem = "must be a visible .yml or .yaml file"
    elif sources.is_symlink() or (sources.exists() and not sources.is_dir()):
        problem = "needs sources/ to be a real directory, not a link or a file"
    elif path.is_dir():
        problem = "names a directory"
    if problem:
        raise StreamtError(
            Codes.E704_IMPORT_PATH_INVALID,
            f"--output-file {requested!r} {problem}.",
            f"Use a new file such as {DEFAULT_OUTPUT} or sources/<domain>.kafka.yml.",
        )
    return sources / path.name


def validate_with(root: Path, env: str | None, relative: str, content: str) -> None:
    """``E705`` when ``content`` at ``relative`` adds a validation error the project did not have."""
    from streamt.project.loader import load_project
    from streamt.validation import validate_project

    before = _errors(lambda: validate_project(load_project(root, env)).errors)
    with tempfile.TemporaryDirectory(prefix="streamt-import-") as staging:
        stage = Path(staging)
        _copy_project(root, stage)
        target = stage / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        after = _errors(lambda: validate_project(load_project(stage, env)).errors)
    new = [d for d in after if (d.code.code, d.message) not in {(b.code.code, b.message) for b in before}]
    if new:
        raise StreamtError(
            Codes.E705_IMPORT_VALIDATION_FAILED,
            f"The generated declarations would add {len(new)} validation error(s); nothing was written.",
            "Narrow the import with --include/--exclude, or fix the project rules the generated sources break.",
            details={"validation_errors": [d.to_json() for d in new]},
        )


def _errors(read: Any) -> list[Diagnostic]:
    try:
        return list(read())
    except StreamtError as exc:
        return list(exc.diagnostics)


def _copy_project(root: Path, stage: Path) -> None:
    from streamt.project.loader import DECLARATION_DIRS, PROJECT_FILES

    for entry in sorted(root.iterdir()):
        name = entry.name
        if entry.is_file() and (name in PROJECT_FILES or name == ".env" or name.startswith(".env.")):
            shutil.copy2(entry, stage / name)
        elif entry.is_dir() and not entry.is_symlink() and name in (*DECLARATION_DIRS, "environments"):
            shutil.copytree(entry, stage / name, symlinks=True)


def create_declaration_file(path: Path, content: str) -> None:
    from streamt.fsutil import create_exclusive

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        create_exclusive(path, content.encode("utf-8"), mode=0o644)
    except FileExistsError:
        raise target_exists(path) from None
    except OSError as exc:
        raise StreamtError(
            Codes.E706_IMPORT_WRITE_FAILED,
            f"The declaration file could not be created ({exc.strerror or type(exc).__name__}); nothing was written.",
            "Check the permissions and free space of sources/.",
        ) from None


def target_exists(path: Path) -> StreamtError:
    return StreamtError(
        Codes.E702_IMPORT_TARGET_EXISTS,
        f"{path.parent.name}/{path.name} already exists and was not changed.",
        "Run with --dry-run and merge by hand, or choose another --output-file.",
    )
