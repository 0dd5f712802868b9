"""``streamt plugin new KIND NAME``: a working plugin distribution to start from.

Each kind's module and test come from ``templates/<kind>/`` (the repository's
worked examples with their names replaced by placeholders); the pyproject, the
README and ``py.typed`` are written here. The distribution passes its own tests
(a subclass of the conformance kit) and is listed by ``streamt plugins`` once
installed, before its author changes a line.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

from streamt import __version__ as CORE_VERSION
from streamt.errors import Codes, StreamtError
from streamt.fsutil import staged_directory

KINDS = ("exporter", "rule", "state-backend", "provider")
# The new plugin's tests use the conformance kit, a distribution of its own: the release line whose
# streamt-core range holds this core (a test checks it against streamt-testing's version).
KIT_REQUIREMENT = "streamt-testing>=0.1,<0.2"
TEMPLATES = Path(__file__).parent / "templates"
_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
_DESCRIPTIONS = {
    "exporter": "streamt export {name}: an exporter command",
    "rule": "a streamt validate rule",
    "state-backend": "deployment_state.backend: {ident}",
    "provider": "materialized: {ident}, with its observer, planner and deployer",
}


def core_range(version: str = CORE_VERSION) -> str:
    """The streamt-core range a new plugin declares: this minor release line (``>=0.1,<0.2``)."""
    major, minor = (int(part) for part in version.split(".")[:2])
    return f">={major}.{minor},<{major}.{minor + 1}" if major == 0 else f">={major}.{minor},<{major + 1}"


def placeholders(name: str) -> dict[str, str]:
    """The names a distribution for ``name`` uses, by template placeholder."""
    ident = name.replace("-", "_")
    # Scaffolded rules get a code of the plugin block E950-E989, derived from the name so two differ.
    code = f"E{950 + zlib.crc32(name.encode()) % 40}_{ident.upper()}_VIOLATED"
    return {
        "__PACKAGE__": f"streamt_{ident}",
        "__DIST__": f"streamt-{name}",
        "__NAME__": name,
        "__IDENT__": ident,
        "__CLASS__": "".join(part.capitalize() for part in name.split("-")),
        "__UPPER__": ident.upper(),
        "__CODE__": code,
    }


def new_distribution(kind: str, name: str, directory: Path) -> tuple[Path, list[str]]:
    """Write the distribution of plugin ``name`` of ``kind`` under ``directory``; returns its root and files."""
    if not _NAME.match(name) or len(name) > 40:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"'{name[:40]}' is not a plugin name.",
            "Use lower-case letters, digits and single dashes, starting with a letter (e.g. acme-topics).",
        )
    names = placeholders(name)
    root = Path(directory) / names["__DIST__"]
    if root.exists():
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"{root} already exists; nothing was written.",
            "Choose another name or --directory, or remove it first.",
        )
    files = _files(kind, names)
    try:
        with staged_directory(root) as staging:
            for relative, text in files.items():
                path = staging / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"The plugin distribution could not be written ({exc.strerror or 'OSError'}); nothing was written.",
            "Check that the directory exists and is writable.",
        ) from None
    return root, sorted(files)


def _files(kind: str, names: dict[str, str]) -> dict[str, str]:
    package = names["__PACKAGE__"]
    return {
        "pyproject.toml": _pyproject(kind, names),
        "README.md": _readme(kind, names),
        f"src/{package}/__init__.py": render(TEMPLATES / kind / "module.py.tmpl", names),
        f"src/{package}/py.typed": "",
        "tests/conftest.py": render(TEMPLATES / "conftest.py.tmpl", names),
        f"tests/test_{names['__IDENT__']}.py": render(TEMPLATES / kind / "test_module.py.tmpl", names),
    }


def render(template: Path, names: dict[str, str]) -> str:
    """``template`` with each placeholder replaced by its name."""
    text = template.read_text(encoding="utf-8")
    for placeholder, value in names.items():
        text = text.replace(placeholder, value)
    return text


def _pyproject(kind: str, names: dict[str, str]) -> str:
    description = _DESCRIPTIONS[kind].format(name=names["__NAME__"], ident=names["__IDENT__"])
    extra = ', "attrs>=23"' if kind == "state-backend" else ""
    return f"""[project]
name = "{names["__DIST__"]}"
version = "0.1.0"
description = "{description}"
readme = "README.md"
requires-python = ">=3.11"
# The streamt plugin loader activates the plugin only on a streamt-core in this range.
dependencies = ["streamt-core{core_range()}"{extra}]

[project.entry-points.streamt]
{names["__NAME__"]} = "{names["__PACKAGE__"]}"

# Its tests: pytest and streamt's conformance kit (contracts and fixtures), never a runtime dependency.
[dependency-groups]
dev = ["pytest>=8", "{KIT_REQUIREMENT}"]

[build-system]
requires = ["hatchling>=1.25"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["src/{names["__PACKAGE__"]}"]
"""


def _readme(kind: str, names: dict[str, str]) -> str:
    return f"""# {names["__DIST__"]}

A streamt {kind} plugin, generated by `streamt plugin new {kind} {names["__NAME__"]}`.

    pip install -e . --group dev    # next to streamt-core, with the dev group (pip >= 25.1): pytest, streamt-testing
    streamt plugins                 # lists {names["__NAME__"]}
    pytest                          # its tests, including the conformance kit (streamt_testing.contracts)

While iterating without installing, point `STREAMT_PLUGINS_DIR` at `src/`: streamt then loads
`{names["__PACKAGE__"]}` from there, marked as unpackaged in `streamt plugins`.

The module in `src/{names["__PACKAGE__"]}/` uses only `streamt.sdk`; see docs/plugins.md,
docs/sdk.md and docs/testing.md of streamt for the hooks, the SDK and the conformance kit.
"""
