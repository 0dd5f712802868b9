"""Environment mode and selection (dsl.md §13): which environment, and its raw file."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import attrs

from streamt.errors import Codes, StreamtError, did_you_mean
from streamt.project.yaml_io import display_path, load_yaml

ENV_VAR = "STREAMT_ENV"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")


@attrs.frozen
class Selection:
    """``name`` is ``default`` in single-environment mode; ``path`` is the environment file."""

    name: str
    multi: bool
    path: Path | None = None
    ignored_env_var: str | None = None


def environments_dir(root: Path) -> Path:
    return root / "environments"


def is_multi(root: Path) -> bool:
    try:
        return environments_dir(root).is_dir()
    except OSError:  # a path the file system cannot even look up (too long): no environments there
        return False


def available(root: Path) -> dict[str, Path]:
    """Environment name -> file, sorted by name. Only ``*.yml``/``*.yaml`` files count."""
    found: dict[str, Path] = {}
    directory = environments_dir(root)
    try:
        entries = sorted(directory.iterdir())
    except OSError:
        return {}
    for entry in entries:
        if entry.suffix in (".yml", ".yaml") and entry.is_file():
            found.setdefault(entry.stem, entry)
    return dict(sorted(found.items()))


def select(root: Path, requested: str | None, process: dict[str, str] | None = None) -> Selection:
    """Resolve ``--env`` (wins) or ``STREAMT_ENV`` against the project's mode."""
    process_env = os.environ if process is None else process
    from_var = process_env.get(ENV_VAR) or None
    if not is_multi(root):
        if requested:
            raise StreamtError(
                Codes.E503_ENVIRONMENT_ERROR,
                f"No environments configured, but --env '{requested}' was given.",
                "Create environments/<name>.yml to use multi-environment mode, or drop --env.",
            )
        return Selection("default", False, None, from_var)
    envs = available(root)
    if not envs:
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            "No environment files found in environments/.",
            "Add environments/<name>.yml files, or remove the empty environments/ directory.",
        )
    name = requested or from_var
    if not name:
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            f"Multi-environment project: choose an environment. Available: {', '.join(envs)}",
            f"Pass --env <name> or set {ENV_VAR}.",
            details={"available": list(envs)},
        )
    if not _NAME.match(name):
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            f"Invalid environment name '{name}'.",
            "Environment names use letters, digits and '-', starting with a letter or digit.",
        )
    if name not in envs:
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            f"Environment '{name}' not found. Available: {', '.join(envs)}",
            did_you_mean(name, list(envs)),
            details={"available": list(envs)},
        )
    return Selection(name, True, envs[name])


def read_environment_file(root: Path, selection: Selection) -> dict[str, Any]:
    """The raw environment document; structural problems are ``E503``."""
    assert selection.path is not None
    shown = display_path(selection.path, root)
    try:
        document = load_yaml(selection.path, shown)
    except StreamtError as exc:
        first = exc.diagnostics[0]
        raise StreamtError(Codes.E503_ENVIRONMENT_ERROR, first.message, first.suggestion, location=shown) from None
    if not isinstance(document, dict):
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            f"Environment file {shown} must be a map with 'environment' and 'runtime'.",
            "See docs: environments/<name>.yml holds environment, runtime, safety, deployment_state.",
            location=shown,
        )
    declared = document.get("environment")
    if isinstance(declared, dict) and declared.get("name") not in (None, selection.name):
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            f"Environment name mismatch: {shown} declares '{declared.get('name')}'.",
            f"Set environment.name to '{selection.name}' or rename the file.",
            location=shown,
        )
    if not isinstance(document.get("runtime"), dict):
        raise StreamtError(
            Codes.E503_ENVIRONMENT_ERROR,
            f"Missing 'runtime' section in environment file {shown}.",
            "Each environments/<name>.yml must define runtime.kafka at least.",
            location=shown,
        )
    return document
