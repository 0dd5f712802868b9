"""Test helpers for streamt and for plugin authors (a pytest plugin).

The distribution streamt-testing, a plugin's test dependency (never core's:
it imports pytest). Once installed, pytest loads it automatically (entry point
``pytest11``), so a plugin's test suite can use these fixtures without any
import:

``streamt_project``
    ``streamt_project({"stream_project.yml": {...}, "models/x.sql": "..."})``
    writes a project directory (mappings and lists become YAML, strings are
    written verbatim) and returns its path.
``streamt_cli``
    ``streamt_cli("validate", "--project-dir", path)`` runs the CLI in this
    process with ``-o json`` and returns a ``CliOutcome`` whose ``envelope``
    is the one parsed JSON document (it fails the test if stdout holds
    anything else).
``streamt_cli_text``
    the same in text mode (what people see): a ``TextOutcome`` with the exit
    code, stdout and stderr.
``streamt_plugin``
    ``streamt_plugin(my_module)`` registers a plugin object on the process'
    plugin manager until the test ends; its hooks and commands are live for
    ``streamt_cli``. ``streamt_plugin(my_module, isolated=True)`` first
    switches every other installed plugin off for the test. Registering a
    plugin that is also pip-installed is fine: it stays registered once.

``streamt_isolated``
    requested by a test, every installed plugin is switched off for it (core's
    built-in plugin stays), as ``isolated=True`` does before registering.

``streamt_testing.contracts`` holds the conformance kit: base test classes a
plugin's suite subclasses (with ``pass``) to check its state backend,
provider trio, exporter, compiler or validation rule against the contract
(docs/testing.md lists each contract with its fixtures).

``compile_with(plugin, project, declaration)`` calls a plugin's ``streamt_compile`` as core's compile
would: only for a declaration that produces a kind the plugin registers (``[]`` otherwise).

``closed_port()`` is a local TCP port nothing listens on (bound, then
released): the address of a service that does not answer.

``write_distribution`` builds a minimal installed distribution (module plus
``.dist-info``) in a directory, to test discovery through real entry points
by putting that directory on ``sys.path`` or ``PYTHONPATH``.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import json
import socket
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest


@attrs.frozen
class CliOutcome:
    """One CLI run: the exit code, the parsed envelope and the raw streams."""

    exit_code: int
    envelope: dict[str, Any]
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.envelope["status"] == "ok"

    @property
    def data(self) -> dict[str, Any]:
        return self.envelope["data"]

    @property
    def error_codes(self) -> list[str]:
        return [error["code"] for error in self.envelope["errors"]]

    @property
    def warning_codes(self) -> list[str]:
        return [warning["code"] for warning in self.envelope["warnings"]]

    @property
    def action_results(self) -> dict[str, str]:
        """``{identity: result}`` of a plan/apply run (``created``, ``updated``, ``unchanged`` ...)."""
        return {action["identity"]: action["result"] for action in self.data["actions"]}


@attrs.frozen
class TextOutcome:
    """One CLI run in text mode: the exit code and the streams as a person sees them."""

    exit_code: int
    stdout: str
    stderr: str


def run_cli_text(*args: str | Path) -> TextOutcome:
    """Run ``streamt ARGS`` in-process in text mode."""
    from streamt.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    exit_code = run([*map(str, args)], stdout=stdout, stderr=stderr)
    return TextOutcome(exit_code, stdout.getvalue(), stderr.getvalue())


def run_cli(*args: str | Path) -> CliOutcome:
    """Run ``streamt -o json ARGS`` in-process and parse its single envelope."""
    from streamt.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    exit_code = run(["-o", "json", *map(str, args)], stdout=stdout, stderr=stderr)
    text = stdout.getvalue()
    try:
        envelope = json.loads(text)  # refuses trailing text: one document, nothing else
    except json.JSONDecodeError as exc:
        raise AssertionError(f"stdout is not one JSON document ({exc}):\n{text}") from None
    if not isinstance(envelope, dict) or set(envelope) != {"status", "command", "data", "errors", "warnings"}:
        raise AssertionError(f"not a streamt envelope:\n{text}")
    return CliOutcome(exit_code, envelope, text, stderr.getvalue())


def compile_with(plugin: Any, project: Any, declaration: Any, env: str = "default") -> list[Any]:
    """``plugin.streamt_compile`` for ``declaration`` if core would send it there (dispatch by kind), else ``[]``.

    Core sends a declaration to a plugin that registers artifact kinds only when the declaration
    produces one of them (``streamt.sdk.produces``); a plugin that registers none sees everything.
    """
    from streamt.artifact_kinds import produces  # the project model: not for every pytest start

    registered = getattr(plugin, "streamt_artifact_kinds", None)
    if registered is not None and not any(produces(kind, declaration) for kind in registered() or ()):
        return []
    arguments = {"project": project, "declaration": declaration, "env": env}
    wanted = inspect.signature(plugin.streamt_compile).parameters
    return list(plugin.streamt_compile(**{name: arguments[name] for name in wanted}) or [])


def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on: the operating system hands it out, then it is released."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def write_project(root: Path, files: Mapping[str, Any]) -> Path:
    """Write ``files`` (relative path -> content) under ``root`` and return it."""
    root.mkdir(parents=True, exist_ok=True)
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else _to_yaml(content), encoding="utf-8")
    return root


def _to_yaml(value: Any) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    out = io.StringIO()
    yaml.dump(value, out)
    return out.getvalue()


def write_distribution(
    site: Path,
    name: str,
    *,
    module: str,
    source: str,
    entry_point: str | None = None,
    requires: Sequence[str] = ("streamt-core>=0.1,<0.2",),
    version: str = "1.0.0",
) -> Path:
    """Lay out an installed distribution ``name`` in the directory ``site``.

    ``source`` becomes ``<module>.py``; ``entry_point`` (default: the module
    name) is registered in the ``streamt`` group; ``requires`` are its
    Requires-Dist lines, which the loader reads for the streamt-core range.
    """
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    dist_info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    dist_info.mkdir(exist_ok=True)
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata += [f"Requires-Dist: {requirement}" for requirement in requires]
    (dist_info / "METADATA").write_text("\n".join(metadata) + "\n", encoding="utf-8")
    (dist_info / "entry_points.txt").write_text(f"[streamt]\n{entry_point or module} = {module}\n", encoding="utf-8")
    return site


@pytest.fixture
def streamt_project(tmp_path: Path) -> Callable[..., Path]:
    """A factory that writes a project directory from a dict of files."""
    counter = iter(range(1_000_000))

    def make(files: Mapping[str, Any], name: str | None = None) -> Path:
        return write_project(tmp_path / (name or f"project{next(counter)}"), files)

    return make


@pytest.fixture
def streamt_cli(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., CliOutcome]]:
    """Run the CLI in-process with ``-o json``; ``env=`` sets variables first.

    Variables that steer plugin loading (``STREAMT_LOAD_PLUGINS``...) take
    effect because the plugin set is reloaded after ``env`` is applied. Do not
    combine ``env=`` with ``streamt_plugin``: the reload drops registrations.
    """
    from streamt.plugins import reset_plugins

    def invoke(*args: str | Path, env: Mapping[str, str | None] | None = None) -> CliOutcome:
        _apply_env(monkeypatch, env)
        return run_cli(*args)

    yield invoke
    reset_plugins()


@pytest.fixture
def streamt_cli_text(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., TextOutcome]]:
    """Run the CLI in-process in text mode; ``env=`` as for ``streamt_cli``."""
    from streamt.plugins import reset_plugins

    def invoke(*args: str | Path, env: Mapping[str, str | None] | None = None) -> TextOutcome:
        _apply_env(monkeypatch, env)
        return run_cli_text(*args)

    yield invoke
    reset_plugins()


def _apply_env(monkeypatch: pytest.MonkeyPatch, env: Mapping[str, str | None] | None) -> None:
    """Set (or, for ``None``, unset) the variables, then reload plugins so loading variables take effect."""
    from streamt.plugins import reset_plugins

    if env is None:
        return
    for key, value in env.items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)
    reset_plugins()


@pytest.fixture
def streamt_isolated() -> Iterator[None]:
    """Only core's built-in plugin for this test, whatever is installed (no ``STREAMT_LOAD_PLUGINS`` needed)."""
    from streamt.plugins import isolated_plugins

    with isolated_plugins():
        yield


@pytest.fixture
def streamt_plugin() -> Iterator[Callable[..., object]]:
    """Register plugin objects until the test ends: ``streamt_plugin(obj, name=..., isolated=...)``.

    ``isolated=True`` first switches every installed plugin off (core's
    built-in plugin stays) for the rest of the test, so that only the plugins
    the test registers answer. A plugin under test that is also pip-installed
    may be registered again: it stays registered once.
    """
    from streamt.plugins import get_plugins, isolated_plugins

    with contextlib.ExitStack() as stack:
        isolation: list[object] = []

        def register(plugin: object, name: str | None = None, *, isolated: bool = False) -> object:
            if isolated and not isolation:
                isolation.append(stack.enter_context(isolated_plugins()))
            plugin_name = name or getattr(plugin, "__name__", None) or f"test-plugin-{id(plugin)}"
            stack.enter_context(get_plugins().temporarily(plugin, plugin_name))
            return plugin

        yield register
