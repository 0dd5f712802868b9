"""Discovering, vetting and registering plugins.

Plugins are entry points of the group ``streamt``. They are loaded once per
process, lazily, on the first call to ``get_plugins()``. A plugin that fails
to import, registers a malformed hook, declares no compatible streamt-core
range, or clashes on an error code is reported as a diagnostic and left out;
everything else keeps working.

Two environment variables pin exactly what runs (both take comma-separated
entry-point or distribution names):

* ``STREAMT_LOAD_PLUGINS`` — an allow-list; when set (even empty), only the
  listed plugins load. Core's built-in plugin always loads.
* ``STREAMT_DISABLED_PLUGINS`` — never load these.

``STREAMT_PLUGINS_DIR`` (directories, ``os.pathsep``-separated) adds unpackaged
plugin modules for quick iteration; ``streamt plugins`` marks them as such.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import sys
import types
from collections.abc import Iterable, Iterator
from typing import Any

import pluggy

from streamt import __version__ as CORE_VERSION
from streamt import builtin, hookspecs
from streamt.entry_points import PluginEntryPoint, find_entry_points
from streamt.errors import Codes, Diagnostic, ErrorCode
from streamt.untrusted import exception_name, identifier
from streamt.values import Value

ENTRY_POINT_GROUP = "streamt"
CORE_DISTRIBUTION = "streamt-core"
BUILTIN_NAME = "streamt.builtin"


class PluginInfo(Value):
    """What ``streamt plugins`` shows for one registered plugin."""

    __slots__ = _fields = (
        "name",
        "distribution",
        "version",
        "module",
        "hooks",
        "builtin",
        "core_requirement",
        "plugins_dir",
    )

    name: str
    distribution: str | None
    version: str | None
    module: str
    hooks: tuple[str, ...]
    builtin: bool
    core_requirement: str | None
    plugins_dir: str | None  # set for an unpackaged module loaded from STREAMT_PLUGINS_DIR

    def __init__(
        self,
        name: str,
        distribution: str | None,
        version: str | None,
        module: str,
        hooks: tuple[str, ...],
        builtin: bool = False,
        core_requirement: str | None = None,
        plugins_dir: str | None = None,
    ) -> None:
        self._fill(name, distribution, version, module, hooks, builtin, core_requirement, plugins_dir)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "builtin": self.builtin,
            "core_requirement": self.core_requirement,
            "plugins_dir": self.plugins_dir,
            "hooks": list(self.hooks),
        }


_ABSENT = object()


def plugin_output_to_stderr() -> contextlib.redirect_stdout[Any]:
    """Whatever plugin code prints goes to stderr: stdout holds the one document (help, envelope) only.

    Plugins never print (the hook rules), but one that does at import or in a hook must not end up
    inside ``--help`` or a JSON envelope, where the CLI collects stdout.
    """
    return contextlib.redirect_stdout(sys.stderr)


class _Manager(pluggy.PluginManager):
    """pluggy's manager, finding the hooks of a module plugin without ``inspect.getattr_static``.

    pluggy looks up every name in ``dir(plugin)`` statically, so that properties are not run; for
    a module, a name that is not a dunder can only be its ``__dict__`` entry, and an entry that is
    not a function (or a static, class or bound method) is never a hook. Skipping those here finds
    the same hooks (a test compares them with pluggy's) for 14% fewer instructions: every start
    registers every plugin, and this is about 1% of ``streamt --help``. Anything else is pluggy's
    to judge.
    """

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if isinstance(plugin, types.ModuleType) and not name.startswith("__"):
            value = plugin.__dict__.get(name, _ABSENT)
            if value is not _ABSENT and not (
                inspect.isfunction(value) or isinstance(value, (staticmethod, classmethod, types.MethodType))
            ):
                return None
        return super().parse_hookimpl_opts(plugin, name)


class Plugins:
    """The plugin manager plus what the loader learnt while filling it."""

    def __init__(self) -> None:
        self.manager = _Manager(ENTRY_POINT_GROUP)
        self.manager.add_hookspecs(hookspecs)
        self.infos: dict[str, PluginInfo] = {}
        self.diagnostics: list[Diagnostic] = []
        # Codes each plugin added, so that unregistering takes them away too.
        self.codes_by_plugin: dict[str, list[str]] = {}
        # Tables built from the hooks (``streamt.artifact_kinds``), forgotten when the plugin set changes.
        self.memo: dict[str, Any] = {}

    @property
    def hook(self) -> Any:
        return self.manager.hook

    def hooks_of(self, plugin: object) -> tuple[str, ...]:
        callers = self.manager.get_hookcallers(plugin) or []
        return tuple(sorted(caller.name for caller in callers))

    def register(
        self,
        plugin: object,
        name: str,
        *,
        distribution: str | None = None,
        version: str | None = None,
        builtin: bool = False,
        core_requirement: str | None = None,
        plugins_dir: str | None = None,
    ) -> bool:
        """Register one plugin object; on a malformed hook, report and skip it."""
        self.memo.clear()
        try:
            self.manager.register(plugin, name=name)
            self.manager.check_pending()
        except pluggy.PluginValidationError as exc:
            if self.manager.is_registered(plugin):
                self.manager.unregister(plugin)
            self.report(Codes.E901_PLUGIN_LOAD_FAILED, name, f"registered a malformed hook: {_malformed(exc)}")
            return False
        except ValueError:  # a name registered twice
            self.report(Codes.E901_PLUGIN_LOAD_FAILED, name, "is registered twice under the same name")
            return False
        if not self._register_codes(plugin, name):
            self.manager.unregister(plugin)
            return False
        module = identifier(getattr(plugin, "__name__", type(plugin).__module__))  # the plugin chose it
        self.infos[name] = PluginInfo(
            name=name,
            distribution=distribution,
            version=version,
            module=module,
            hooks=self.hooks_of(plugin),
            builtin=builtin,
            core_requirement=core_requirement,
            plugins_dir=plugins_dir,
        )
        return True

    def unregister(self, name: str) -> None:
        self.memo.clear()
        plugin = self.manager.get_plugin(name)
        if plugin is not None:
            self.manager.unregister(plugin)
        self.infos.pop(name, None)
        for code in self.codes_by_plugin.pop(name, []):
            Codes.unregister(code)
        # A plugin that is gone no longer has problems to report on every command.
        self.diagnostics = [d for d in self.diagnostics if (d.details or {}).get("plugin") != name]

    @contextlib.contextmanager
    def temporarily(self, plugin: object, name: str) -> Iterator[None]:
        """Register ``plugin`` for the duration of a ``with`` block (tests).

        A plugin that is already registered (the plugin under test is also
        pip-installed, so its entry point loaded the same module) stays as it
        is. Another plugin registered under ``name`` steps aside meanwhile.
        """
        if self.manager.is_registered(plugin):
            yield
            return
        displaced = self.manager.get_plugin(name)
        info = self.infos.get(name)
        if displaced is not None:
            self.unregister(name)
        if not self.register(plugin, name, distribution=None, version=None):
            raise RuntimeError(f"plugin {name} could not be registered: {self.diagnostics[-1].message}")
        try:
            yield
        finally:
            self.unregister(name)
            if displaced is not None:
                self.register(
                    displaced,
                    name,
                    distribution=info.distribution if info else None,
                    version=info.version if info else None,
                    builtin=info.builtin if info else False,
                    core_requirement=info.core_requirement if info else None,
                    plugins_dir=info.plugins_dir if info else None,
                )

    def call_each(self, hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """Call each implementation of a hook on its own, in pluggy's order.

        ``hook.<name>(...)`` stops at the first exception, so one broken
        plugin would take every other plugin's commands down with it. Here a
        failing implementation is reported (E901, naming the plugin) and the
        rest still run. Returns ``(plugin name, result)`` pairs.
        """
        caller = getattr(self.manager.hook, hook_name)
        return self.call_each_of(reversed(caller.get_hookimpls()), hook_name, **kwargs)  # pluggy: last first

    def call_each_of(self, impls: Iterable[Any], hook_name: str, **kwargs: Any) -> list[tuple[str, Any]]:
        """``call_each`` for the given implementations of ``hook_name`` only, in their order."""
        results: list[tuple[str, Any]] = []
        with plugin_output_to_stderr():
            for impl in impls:
                if impl.hookwrapper or getattr(impl, "wrapper", False):
                    continue  # wrappers only make sense around a full pluggy call
                try:
                    result = impl.function(*(kwargs[arg] for arg in impl.argnames))
                except Exception as exc:
                    problem = f"failed in {hook_name}: {_short(exc)}"
                    self.report(Codes.E901_PLUGIN_LOAD_FAILED, impl.plugin_name, problem)
                    continue
                results.append((impl.plugin_name, result))
        return results

    def owner_of(self, module_name: str) -> str | None:
        """The registered plugin whose package contains ``module_name``, if any."""
        for info in self.infos.values():
            package = info.module.split(".")[0]
            if not info.builtin and (module_name == package or module_name.startswith(package + ".")):
                return info.name
        return None

    def _register_codes(self, plugin: object, name: str) -> bool:
        impl = getattr(plugin, "streamt_error_codes", None)
        if impl is None:
            return True
        added: list[str] = []
        try:
            codes = impl() or []
            for code in codes:
                if not isinstance(code, ErrorCode):
                    raise TypeError("streamt_error_codes must return ErrorCode objects")
                if code.code not in Codes:
                    added.append(code.code)
                Codes.register(code)
        except Exception as exc:  # a plugin bug must not take the CLI down
            for code_name in added:
                Codes.unregister(code_name)
            self.report(Codes.E901_PLUGIN_LOAD_FAILED, name, f"declared invalid error codes: {_short(exc)}")
            return False
        self.codes_by_plugin[name] = added
        return True

    def add_diagnostic(self, diagnostic: Diagnostic) -> None:
        """Keep a plugin problem for every command's warnings (and ``streamt plugins``' errors), once."""
        # Hooks run again each time the CLI is assembled in one process (tests,
        # embedding): the same failure is one diagnostic, not one per run.
        if diagnostic not in self.diagnostics:
            self.diagnostics.append(diagnostic)

    def report(self, code: ErrorCode, name: str, problem: str, suggestion: str | None = None) -> None:
        diagnostic = Diagnostic(
            code,
            f"Plugin '{name}' {problem}",
            suggestion or "Reinstall or upgrade the plugin, or disable it with STREAMT_DISABLED_PLUGINS.",
            details={"plugin": name},
        )
        self.add_diagnostic(diagnostic)

    def load_entry_points(self, entry_points: Iterable[PluginEntryPoint], environ: dict[str, str]) -> None:
        with plugin_output_to_stderr():  # what a plugin prints at import, or in streamt_error_codes
            self._load_each(entry_points, environ)

    def _load_each(self, entry_points: Iterable[PluginEntryPoint], environ: dict[str, str]) -> None:
        allow = _name_set(environ.get("STREAMT_LOAD_PLUGINS"))
        deny = _name_set(environ.get("STREAMT_DISABLED_PLUGINS")) or set()
        for ep in sorted(entry_points, key=lambda e: e.name):
            names = {ep.name, ep.dist_name}
            if allow is not None and not names & allow:
                continue
            if names & deny:
                continue
            name = identifier(ep.name)  # the plugin chose it: shown only as name characters
            requirement = _core_requirement(ep.requires)
            if not self._compatible(name, requirement):
                continue
            try:
                plugin = ep.load()
            except (Exception, SystemExit) as exc:  # any import-time failure is the plugin's, not ours
                self.report(Codes.E901_PLUGIN_LOAD_FAILED, name, f"failed to import: {_short(exc)}")
                continue
            self.register(
                plugin,
                name,
                distribution=identifier(ep.dist_name) if ep.dist_name else None,
                version=identifier(ep.version) if ep.version else None,
                core_requirement=requirement,
            )

    def load_plugins_dir(self, directories: str, environ: dict[str, str]) -> None:
        """Load the unpackaged plugin modules (``name.py``, ``name/__init__.py``) of ``STREAMT_PLUGINS_DIR``.

        Each module is a plugin named after it, marked with its directory in ``streamt plugins``. It
        declares no streamt-core range (it has no distribution); everything else holds as for an
        installed plugin: allow and deny lists, vetting, claims.
        """
        allow = _name_set(environ.get("STREAMT_LOAD_PLUGINS"))
        deny = _name_set(environ.get("STREAMT_DISABLED_PLUGINS")) or set()
        for directory in filter(None, directories.split(os.pathsep)):
            for module_name, path in _plugin_modules(directory):
                name = identifier(module_name)
                if (allow is not None and name not in allow) or name in deny:
                    continue
                loaded = sys.modules.get(module_name)
                if loaded is not None and getattr(loaded, "__file__", None) == path:  # loaded before in-process
                    self.register(loaded, name, plugins_dir=os.path.abspath(directory))
                    continue
                if loaded is not None or name in self.infos:
                    self.report(
                        Codes.E901_PLUGIN_LOAD_FAILED,
                        name,
                        "from STREAMT_PLUGINS_DIR is also installed or loaded; the first one loaded is used",
                        "Uninstall one of them, or remove it from STREAMT_PLUGINS_DIR.",
                    )
                    continue
                try:
                    plugin = _import_file(module_name, path)
                except (Exception, SystemExit) as exc:
                    sys.modules.pop(module_name, None)
                    self.report(Codes.E901_PLUGIN_LOAD_FAILED, name, f"failed to import: {_short(exc)}")
                    continue
                self.register(plugin, name, plugins_dir=os.path.abspath(directory))

    def _compatible(self, name: str, requirement: str | None) -> bool:
        if requirement is None:
            self.report(
                Codes.E902_PLUGIN_INCOMPATIBLE,
                name,
                "does not declare which streamt-core versions it supports",
                "The plugin's distribution must depend on streamt-core with a version range.",
            )
            return False
        verdict = _version_in_range(CORE_VERSION, requirement)
        if verdict is None:
            self.report(Codes.E902_PLUGIN_INCOMPATIBLE, name, f"declares an invalid streamt-core range {requirement!r}")
            return False
        if not verdict:
            self.report(
                Codes.E902_PLUGIN_INCOMPATIBLE,
                name,
                f"supports streamt-core {requirement} but this is streamt-core {CORE_VERSION}",
                "Install a release of the plugin built for this streamt-core, or disable it.",
            )
            return False
        return True


def _plugin_modules(directory: str) -> list[tuple[str, str]]:
    """``(module name, file)`` of each ``name.py`` and ``name/__init__.py`` in ``directory``, sorted."""
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        path = os.path.join(directory, entry)
        if entry.endswith(".py") and entry[:-3].isidentifier() and os.path.isfile(path):
            found.append((entry[:-3], path))
        elif entry.isidentifier() and os.path.isfile(os.path.join(path, "__init__.py")):
            found.append((entry, os.path.join(path, "__init__.py")))
    return found


def _import_file(module_name: str, path: str) -> types.ModuleType:
    """Import ``path`` as module ``module_name`` (a package when it is an ``__init__.py``)."""
    import importlib.util  # only STREAMT_PLUGINS_DIR needs it: not on every start

    package = os.path.basename(path) == "__init__.py"
    locations = [os.path.dirname(path)] if package else None
    spec = importlib.util.spec_from_file_location(module_name, path, submodule_search_locations=locations)
    if spec is None or spec.loader is None:
        raise ImportError(module_name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # the package's own relative imports find it
    spec.loader.exec_module(module)
    return module


_SIMPLE_CLAUSE = re.compile(r"^(>=|<=|==|!=|~=|>|<)\s*([0-9]+(?:\.[0-9]+)*)$")


def _version_in_range(version: str, requirement: str) -> bool | None:
    """Whether ``version`` satisfies ``requirement``; None when the range is invalid.

    Plugin ranges are almost always plain (``>=0.1,<0.2``) and core versions
    plain releases: those are compared here, which spares every start-up the
    import of ``packaging``. Anything else (pre-releases, wildcards, local
    versions) goes to ``packaging.specifiers``, which is the reference.
    """
    clauses = [_SIMPLE_CLAUSE.match(part.strip()) for part in requirement.split(",")]
    simple = all(m is not None and not (m.group(1) == "~=" and "." not in m.group(2)) for m in clauses)
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)*", version) and simple:
        have = _release(version)
        return all(_compare(have, m.group(1), m.group(2)) for m in clauses if m is not None)
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(requirement).contains(version, prereleases=True)
    except InvalidSpecifier:
        return None


def _release(text: str, width: int = 0) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (width - len(parts)))


def _compare(have: tuple[int, ...], op: str, bound_text: str) -> bool:
    bound = _release(bound_text)
    width = max(len(have), len(bound))
    have, padded = have + (0,) * (width - len(have)), _release(bound_text, width)
    if op == "~=":  # compatible release: >= bound, and the same prefix but for the last part
        prefix = bound[:-1] if len(bound) > 1 else bound
        return have >= padded and have[: len(prefix)] == prefix
    return {
        ">=": have >= padded,
        "<=": have <= padded,
        ">": have > padded,
        "<": have < padded,
        "==": have == padded,
        "!=": have != padded,
    }[op]


def _core_requirement(requires: Iterable[str]) -> str | None:
    """The version range a plugin distribution declares on streamt-core."""
    for line in requires:
        match = _REQUIREMENT_RE.match(line)
        if match is None or match.group("marker"):
            continue
        name = re.sub(r"[-_.]+", "-", match.group("name")).lower()
        if name == CORE_DISTRIBUTION:
            return match.group("spec").replace(" ", "") or None
    return None


# Requires-Dist lines are PEP 508 strings. Only name and version range matter
# here, and this avoids importing packaging.requirements (and its marker
# grammar) on every CLI start; the range itself is checked with
# packaging.specifiers.
_REQUIREMENT_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?(?P<spec>[^;()]*)\)?\s*(?P<marker>;.*)?$"
)


def _name_set(value: str | None) -> set[str] | None:
    if value is None:
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def _short(exc: BaseException) -> str:
    # The exception class only, as for E999: a plugin's message may carry a
    # secret (``RuntimeError("... token=hunter2")`` at import), and the class
    # is enough to find the fault. STREAMT_LOG_LEVEL=DEBUG logs no more either.
    # A class the plugin defined is shown as its built-in base: its name is the plugin's text too.
    return exception_name(exc)


# Patterns, not compiled at import: only a malformed plugin needs them (re caches them on first use).
_BAD_ARGUMENTS = r"for hook '(\w+)'.*?Argument\(s\) \{(.*?)\} are declared"
_UNKNOWN_HOOK = r"^unknown hook '(\w+)'"


def _malformed(exc: pluggy.PluginValidationError) -> str:
    """Which hook and which argument pluggy refused, in words (never the plugin object's repr)."""
    text = str(exc)
    bad = re.search(_BAD_ARGUMENTS, text, re.S)
    if bad is not None:
        hook = identifier(bad.group(1))
        arguments = ", ".join(f"'{identifier(a.strip().strip(chr(39)))}'" for a in bad.group(2).split(","))
        spec = getattr(hookspecs, hook, None)
        offered = ", ".join(inspect.signature(spec).parameters) if spec is not None else ""
        return f"{hook} declares argument(s) {arguments}, which the hook does not pass" + (
            f" (it passes: {offered})" if offered else " (it passes none)"
        )
    unknown = re.search(_UNKNOWN_HOOK, text)
    if unknown is not None:
        return f"unknown hook '{identifier(unknown.group(1))}' (hook names come from streamt.hookspecs)"
    return exception_name(exc)


_PLUGINS: Plugins | None = None


def get_plugins() -> Plugins:
    """The process-wide plugin set, loaded on first use."""
    global _PLUGINS
    if _PLUGINS is None:
        _PLUGINS = _load()
    return _PLUGINS


def reset_plugins() -> None:
    """Forget the loaded plugins (tests that change the environment use it)."""
    global _PLUGINS
    _PLUGINS = None


@contextlib.contextmanager
def isolated_plugins() -> Iterator[Plugins]:
    """Only core's built-in plugin, whatever is installed, until the block ends (tests).

    What ``STREAMT_LOAD_PLUGINS=""`` does for a process, for one block: the
    plugin set loaded before is put back afterwards, untouched.
    """
    global _PLUGINS
    saved = _PLUGINS
    isolated = _PLUGINS = _load(load_entry_points=False)
    try:
        yield isolated
    finally:
        for name in list(isolated.infos):
            if name != BUILTIN_NAME:
                isolated.unregister(name)
        _PLUGINS = saved


def _load(*, load_entry_points: bool = True) -> Plugins:
    plugins = Plugins()
    plugins.register(builtin, BUILTIN_NAME, distribution=CORE_DISTRIBUTION, version=CORE_VERSION, builtin=True)
    if load_entry_points:
        environ = dict(os.environ)
        plugins.load_entry_points(find_entry_points(ENTRY_POINT_GROUP), environ)
        if environ.get("STREAMT_PLUGINS_DIR"):
            with plugin_output_to_stderr():  # what a module prints at import, or its streamt_error_codes
                plugins.load_plugins_dir(environ["STREAMT_PLUGINS_DIR"], environ)
    return plugins
