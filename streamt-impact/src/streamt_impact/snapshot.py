"""A declared snapshot: the project at one side of a comparison, loaded, validated and compiled.

The files (from a Git ref or the working tree) are written into a private temporary directory and
read by the ordinary loader with the ordinary plugins, so a snapshot is exactly what ``compile``
would see. Nothing contacts a provider. The process environment is not consulted for
``${NAME}`` values: every placeholder without a fallback is given its own ``${NAME}`` text, so
secrets are never needed and never read, and both sides resolve the same way on any machine.
The temporary directory is scratch space removed before returning, so it is written directly
rather than through ``streamt.fsutil``.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

import attrs
from streamt.sdk import (
    ENVIRONMENT_ENV,
    PROJECT_FILES,
    Codes,
    Diagnostic,
    StreamtError,
    load_project,
    replace,
    validate_and_compile,
)

# ``${NAME}`` / ``${NAME:-fallback}`` in YAML values, and ``env("NAME")`` in Jinja SQL.
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-)?")
_JINJA_ENV = re.compile(r"""\benv\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*(,)?""")


@attrs.frozen
class Side:
    """Which side of the comparison: a resolved Git commit, or the working tree (``commit`` None)."""

    label: str  # "base" | "head"
    ref: str | None
    commit: str | None

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "ref": self.ref, "working_tree": self.commit is None}

    @property
    def shown(self) -> str:
        return f"{self.ref} ({self.commit[:12]})" if self.ref and self.commit else "the working tree"


@attrs.frozen
class Snapshot:
    side: Side
    project: Any
    compiled: Any
    warnings: tuple[Diagnostic, ...] = ()


def placeholder_environment(files: dict[str, bytes]) -> dict[str, str]:
    """NAME -> "${NAME}" for every name used somewhere without a fallback; the rest use their fallback."""
    bare: set[str] = set()
    for data in files.values():
        text = data.decode("utf-8", "replace")
        bare |= {m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(2) is None}
        bare |= {m.group(1) for m in _JINJA_ENV.finditer(text) if m.group(2) is None}
    return {name: "${" + name + "}" for name in sorted(bare)}


def _materialize(files: dict[str, bytes], root: Path) -> None:
    for relative, data in files.items():
        parts = PurePosixPath(relative).parts
        if not parts or relative.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\0" in relative:
            raise ValueError(f"unsafe project path {relative!r}")  # the readers never produce one
        path = root.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.write_bytes(data)


def take(side: Side, files: dict[str, bytes], env: str | None) -> Snapshot:
    """Load, validate and compile ``files`` for ``env``; problems name the side they came from."""
    if not any(name in files for name in PROJECT_FILES):
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"At {side.label} {side.shown}: there is no stream_project.yml in the project directory.",
            "Compare refs at which the project exists (a pull request that adds the project has no base).",
            data={"side": side.label},
        )
    process = placeholder_environment(files)
    if env is None and os.environ.get(ENVIRONMENT_ENV):
        process[ENVIRONMENT_ENV] = os.environ[ENVIRONMENT_ENV]
    with tempfile.TemporaryDirectory(prefix="streamt-impact-") as scratch:
        root = Path(scratch) / "project"
        root.mkdir(mode=0o700)
        _materialize(files, root)
        try:
            loaded = validate_and_compile(load_project(root, env, process_env=process))
        except StreamtError as exc:
            raise StreamtError.from_diagnostics(
                [replace(d, message=f"At {side.label} {side.shown}: {d.message}") for d in exc.diagnostics],
                data={"side": side.label},
            ) from None
    return Snapshot(side=side, project=loaded.project, compiled=loaded.compiled, warnings=loaded.warnings)
