"""The artifact kinds plugins register: where core writes them, how it orders them, who compiles what.

Core knows no artifact kind by name. Each plugin registers the kinds it compiles
(``streamt_artifact_kinds`` returning ``streamt.sdk.ArtifactKind``), and core reads this registry:

* ``compile`` sends a declaration only to the plugins whose kinds it produces (``compilers``); a
  plugin that implements ``streamt_compile`` and registers no kind at all still sees every
  declaration, as every plugin did before kinds were registered;
* the output layout reads ``placement`` and ``named_by_model``, and the manifest lists every
  registered ``manifest_key``;
* artifact order and the sections of plan, apply and diff text read ``rank`` and ``title``;
* ``streamt impact`` (streamt-impact) asks ``produced_kinds`` which kinds a model compiles to.

A declaration *uses* its kind (a source), its test type, its materialization, and its executor
when it is a ``topic`` model with SQL (dsl.md section 9.2: the executor runs a topic model's SQL).
A kind is produced by a declaration when the kind's registration names one of them
(``produces``). One kind, one provider (``streamt.kinds``): two plugins registering a kind, or
two kinds of different plugins sharing a manifest key, is ``E906`` and neither is used.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from streamt import kinds
from streamt.capabilities import ARTIFACT_KIND, ArtifactKind
from streamt.errors import Codes, Diagnostic
from streamt.plugins import Plugins, get_plugins

if TYPE_CHECKING:
    from streamt.project.model import Model, Source, Test

ARTIFACT_HOOK = "streamt_artifact_kinds"
UNREGISTERED_RANK = 100
NAMED_BY = ("identity", "name")
# One directory level: no separators, no ``.``/``..``, nothing a file system treats specially.
_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")

Use = tuple[str, str]  # (what, name): ("materialization", "flink"), ("executor", "flink"), ("source", "")
# The uses ``streamt_materializations`` declares a plugin for (``E903`` when none does).
MATERIALIZATION_USES = ("materialization", "executor")


def uses(declaration: Any) -> tuple[Use, ...]:
    """What ``declaration`` asks a compiler for: its source-ness, test type, materialization and executor."""
    model, source, test = _declaration_types()
    if isinstance(declaration, model):
        if declaration.materialized == "topic" and declaration.sql:
            return (("materialization", declaration.materialized), ("executor", declaration.executor))
        return (("materialization", declaration.materialized),)
    if isinstance(declaration, source):
        return (("source", ""),)
    if isinstance(declaration, test):
        return (("test_type", declaration.type),)
    return ()


@functools.cache
def _declaration_types() -> tuple[type[Model], type[Source], type[Test]]:
    # Imported on first use, not with this module: `streamt plugins` lists the registry without
    # loading the project model.
    from streamt.project import model

    return model.Model, model.Source, model.Test


def _served(kind: ArtifactKind) -> tuple[Use, ...]:
    return (
        *((("source", ""),) if kind.sources else ()),
        *(("test_type", name) for name in kind.test_types),
        *(("materialization", name) for name in kind.materializations),
        *(("executor", name) for name in kind.executors),
    )


def produces(kind: ArtifactKind, declaration: Any) -> bool:
    """Does ``declaration`` compile into ``kind``? (The one answer of compile dispatch, validation and impact.)"""
    for what, name in uses(declaration):
        if what == "source":
            if kind.sources:
                return True
        elif name in getattr(kind, _SERVED_BY[what]):
            return True
    return False


# What each use is looked up in (``source`` is the flag ``ArtifactKind.sources``).
_SERVED_BY = {"materialization": "materializations", "executor": "executors", "test_type": "test_types"}


class ArtifactKinds:
    """The registry: ``table`` (kind -> its one registration) and the lookups core makes by kind."""

    def __init__(self, table: kinds.KindTable[ArtifactKind], contested: dict[str, set[Use]], broadcast: frozenset[str]):
        self.table = table
        # Plugins that register no kind: every declaration goes to them.
        self.broadcast = broadcast
        self._compilers: dict[Use, set[str]] = {}
        self._kinds: dict[Use, set[str]] = {}
        for name, registration in table.items():
            for use in _served(registration):
                self._compilers.setdefault(use, set()).add(table.providers[name])
                self._kinds.setdefault(use, set()).add(name)
        self._contested = contested  # conflicted kind -> what every claim of it serves
        self.manifest_keys = tuple(sorted({registration.manifest_key for registration in table.values()}))

    def placement(self, kind: str) -> tuple[str, str]:
        """``(directory, manifest key)``; an unregistered kind goes under ``<kind>/`` and ``artifacts.<kind>``."""
        registration = self.table.get(kind)
        return (kind, kind) if registration is None else (registration.directory, registration.manifest_key)

    def named_by_model(self, kind: str) -> bool:
        registration = self.table.get(kind)
        return registration is not None and registration.named_by == "name"

    def rank(self, kind: str) -> tuple[int, str]:
        """The sort key of a kind when no dependency decides: its rank, then its name."""
        registration = self.table.get(kind)
        return (UNREGISTERED_RANK if registration is None else registration.rank, kind)

    def title(self, kind: str) -> str:
        registration = self.table.get(kind)
        return registration.title if registration is not None and registration.title else kind

    def compilers(self, declaration: Any) -> frozenset[str]:
        """The plugins whose ``streamt_compile`` sees ``declaration``."""
        found = set(self.broadcast)
        for use in uses(declaration):
            found |= self._compilers.get(use, set())
        return frozenset(found)

    def produced_by(self, declaration: Any) -> tuple[str, ...]:
        """The registered kinds ``declaration`` compiles into, sorted."""
        found: set[str] = set()
        for use in uses(declaration):
            found |= self._kinds.get(use, set())
        return tuple(sorted(found))

    def conflicts(self, declarations: Iterable[Any]) -> list[Diagnostic]:
        """``E906`` for each conflicted kind one of ``declarations`` would compile into."""
        if not self._contested:
            return []
        used = {use for declaration in declarations for use in uses(declaration)}
        return [
            kinds.conflict_diagnostic(self.table.family, kind, self.table.conflicts[kind])
            for kind, served in sorted(self._contested.items())
            if not served.isdisjoint(used) and kind in self.table.conflicts
        ]


def artifact_kinds(plugins: Plugins) -> ArtifactKinds:
    """The registry of ``plugins``, built once per plugin set (its conflicts are reported then, once)."""
    found = plugins.memo.get(ARTIFACT_KIND)
    if found is None:
        found = plugins.memo[ARTIFACT_KIND] = _build(plugins)
    return found


def produced_kinds(declaration: Any) -> tuple[str, ...]:
    """The artifact kinds the installed plugins compile ``declaration`` into, sorted (from their registrations)."""
    return artifact_kinds(get_plugins()).produced_by(declaration)


def _build(plugins: Plugins) -> ArtifactKinds:
    batches = [(plugin, list(_valid(plugins, plugin, batch))) for plugin, batch in plugins.call_each(ARTIFACT_HOOK)]
    table = kinds.by_kind(plugins, ARTIFACT_HOOK, ARTIFACT_KIND, lambda k: (k.name,), batches=batches)
    _refuse_shared_keys(plugins, table)
    contested: dict[str, set[Use]] = {}
    for _plugin, batch in batches:
        for registration in batch:
            if registration.name in table.conflicts:
                contested.setdefault(registration.name, set()).update(_served(registration))
    registering = {plugin for plugin, _ in batches}
    compiling = {impl.plugin_name for impl in plugins.manager.hook.streamt_compile.get_hookimpls()}
    return ArtifactKinds(table, contested, frozenset(compiling - registering))


def _valid(plugins: Plugins, plugin: str, batch: Any) -> Iterable[ArtifactKind]:
    for item in batch or ():
        problem = _problem(item)
        if problem is None:
            yield item
        else:
            plugins.report(Codes.E901_PLUGIN_LOAD_FAILED, plugin, f"registered an invalid artifact kind: {problem}")


def _problem(item: Any) -> str | None:
    if not isinstance(item, ArtifactKind):
        return "streamt_artifact_kinds must return ArtifactKind objects"
    if not (isinstance(item.name, str) and _PART.match(item.name)):
        return "its name must be letters, digits, '_', '.' or '-'"
    if not (isinstance(item.manifest_key, str) and _PART.match(item.manifest_key)):
        return f"'{item.name}': its manifest_key must be letters, digits, '_', '.' or '-'"
    parts = item.directory.split("/") if isinstance(item.directory, str) else [""]
    if not all(_PART.match(part) and part not in (".", "..") for part in parts):
        return f"'{item.name}': its directory must be a relative path of plain names"
    if type(item.rank) is not int:
        return f"'{item.name}': its rank must be an integer"
    if item.named_by not in NAMED_BY:
        return f"'{item.name}': named_by must be 'identity' or 'name'"
    return None


def _refuse_shared_keys(plugins: Plugins, table: kinds.KindTable[ArtifactKind]) -> None:
    """Two plugins' kinds under one manifest key would mix their lists: neither is used (``E906``)."""
    owners: dict[str, set[str]] = {}
    for name, registration in table.items():
        owners.setdefault(registration.manifest_key, set()).add(table.providers[name])
    for key, claimants in sorted(owners.items()):
        if len(claimants) < 2:
            continue
        plugins_named = tuple(sorted(claimants))
        plugins.add_diagnostic(kinds.conflict_diagnostic("manifest_key", key, plugins_named))
        for name in [n for n, registration in table.items() if registration.manifest_key == key]:
            table.conflicts[name] = plugins_named
            del table[name]
            del table.providers[name]


__all__ = ["MATERIALIZATION_USES", "UNREGISTERED_RANK", "ArtifactKinds", "artifact_kinds", "produces", "uses"]
