"""The ``.gitignore`` a new project gets, from either ``init`` mode: what a checkout must never commit."""

from __future__ import annotations

from pathlib import Path

GITIGNORE = """\
.streamt/
generated/
build/
site/
.env*
"""


def with_gitignore(root: Path, files: dict[str, str]) -> dict[str, str]:
    """``files`` plus ``.gitignore`` unless ``root`` has one: a repository's own is never replaced."""
    return files if (root / ".gitignore").exists() else {**files, ".gitignore": GITIGNORE}
