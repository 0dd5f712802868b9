"""Open kinds: what installed plugins provide, what core knows of, and one precedence rule.

Nothing here is a closed list. A *kind* is a name in one *family*:

* ``materialization`` / ``executor`` — ``materialized:`` and ``executor:`` of
  a model (``streamt_materializations``);
* ``state_backend`` — ``deployment_state.backend`` (``streamt_state_backends``);
* ``test_type`` / ``assertion`` — ``tests[].type`` and the keys of
  ``tests[].assertions`` items (``streamt_test_types``, ``streamt_assertion_kinds``);
* ``artifact_kind`` — the kinds plugins compile, with their layout and rank
  (``streamt_artifact_kinds``; the registry is ``streamt.artifact_kinds``);
* ``observer`` / ``planner`` / ``deployer`` / ``discoverer`` — artifact kinds
  served by the objects of ``streamt_observers`` ... (their ``kinds``);
* ``command`` — ``<group> <name>`` subcommands that a known plugin adds.

Two sources fill each family: *providers* (what installed plugins declare)
and the *catalog* of known kinds (``streamt_known_kinds``: a name and the
extra that installs its plugin; core's own catalog is in ``streamt.builtin``).
A value is valid when it is provided or known; a known one whose plugin is
missing gets the install command (``E903``), an unknown one a did-you-mean.

The precedence rule, the same for every by-kind registry: **one kind, one
provider**. When two plugins claim the same kind, neither is used: the kind
is left out of the table, ``E906_PLUGIN_CONFLICT`` naming both is reported on
every command, and a command that needs the kind fails with it. A placeholder
(``implemented=False``) never conflicts with an implementation: the
implementation wins. A kind core or a plugin streamt ships claims stays with
it, and every other claim on it is refused (``streamt.claims``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from streamt import claims as claims_of
from streamt.capabilities import (
    ARTIFACT_KIND,
    ASSERTION,
    COMMAND,
    CONFIG_SECTION,
    DISCOVERER,
    EXECUTOR,
    EXPORTER,
    MATERIALIZATION,
    REMOVAL,
    STATE_BACKEND,
    TEST_TYPE,
    KnownKind,
)
from streamt.errors import Codes, Diagnostic, StreamtError, did_you_mean
from streamt.plugins import Plugins, get_plugins
from streamt.untrusted import identifier

if TYPE_CHECKING:
    from streamt.project.model import Runtime
    from streamt.sdk.protocols import Deployer, DiscoverySource, Observer, Planner

OBSERVER = "observer"
PLANNER = "planner"
DEPLOYER = "deployer"
STARTER = "init_starter"
PLAN_FILE_EXTENSION = "plan_file_extension"

__all__ = [
    "ARTIFACT_KIND",
    "ASSERTION",
    "COMMAND",
    "DEPLOYER",
    "DISCOVERER",
    "EXECUTOR",
    "EXPORTER",
    "MATERIALIZATION",
    "OBSERVER",
    "PLANNER",
    "PLAN_FILE_EXTENSION",
    "REMOVAL",
    "STARTER",
    "STATE_BACKEND",
    "TEST_TYPE",
    "KindTable",
    "assertion_kinds",
    "by_kind",
    "catalog",
    "config_sections",
    "conflict_diagnostic",
    "deployers",
    "discoverers",
    "init_starters",
    "install_hint",
    "installed_planners",
    "known",
    "materializations",
    "observers",
    "plan_file_extensions",
    "planners",
    "removal_kinds",
    "state_backends",
    "test_types",
    "unknown_suggestion",
    "valid_values",
]

T = TypeVar("T")


class KindTable(dict[str, T], Generic[T]):
    """``kind -> the one object that serves it``; a conflicted kind is absent and listed in ``conflicts``."""

    def __init__(self, family: str) -> None:
        super().__init__()
        self.family = family
        self.providers: dict[str, str] = {}  # kind -> plugin name
        self.conflicts: dict[str, tuple[str, ...]] = {}  # kind -> every plugin that claims it

    def require(self, kinds: Iterable[str]) -> None:
        """``E906`` when any of ``kinds`` is claimed by two plugins (so it has no provider)."""
        needed = sorted(set(kinds) & set(self.conflicts))
        problems = [conflict_diagnostic(self.family, kind, self.conflicts[kind]) for kind in needed]
        if problems:
            raise StreamtError.from_diagnostics(problems)


def conflict_diagnostic(family: str, kind: str, plugins: tuple[str, ...]) -> Diagnostic:
    names = " and ".join(f"'{p}'" for p in plugins)
    kind = identifier(kind)  # the plugins chose it
    return Diagnostic(
        Codes.E906_PLUGIN_CONFLICT,
        f"Plugins {names} both provide the {family.replace('_', ' ')} '{kind}'; neither is used.",
        "Disable all but one of them with STREAMT_DISABLED_PLUGINS.",
        details={"family": family, "kind": kind, "plugins": list(plugins)},
    )


def by_kind(
    plugins: Plugins,
    hook_name: str,
    family: str,
    keys: Callable[[Any], Iterable[str]],
    *,
    placeholder: Callable[[Any], bool] = lambda _item: False,
    held: Mapping[str, str] | None = None,
    batches: Iterable[tuple[str, Any]] | None = None,
    **kwargs: Any,
) -> KindTable[Any]:
    """The table of one family from one hook, under the one precedence rule.

    ``keys(item)`` are the kinds an item claims (``item.kinds`` or
    ``(item.name,)``); ``placeholder(item)`` marks declarations that any
    implementation replaces. A plugin's own duplicates keep its first item.
    A kind that core or a plugin streamt ships holds (``streamt.claims``) stays
    with it, and every other claim on it is refused (``E906``); ``held`` names
    kinds core owns without a hook. ``batches`` are the hook's ``(plugin, result)`` pairs when the
    caller has called it already.
    """
    table: KindTable[Any] = KindTable(family)
    claims: dict[str, list[tuple[str, Any]]] = {}
    for plugin_name, batch in plugins.call_each(hook_name, **kwargs) if batches is None else batches:
        for item in batch or ():
            for kind in keys(item):
                claims.setdefault(kind, []).append((plugin_name, item))
    for kind, claimed in claims.items():
        real = [(p, item) for p, item in claimed if not placeholder(item)] or claimed[:1]
        owners = tuple(sorted({p for p, _ in real}))  # sorted: the same message whatever the load order
        contested = len(owners) > 1 or (held is not None and kind in held)  # one claimant of a free name keeps it
        holder = claims_of.keeper(plugins, kind, owners, held) if contested else None
        if holder is not None:
            for intruder in owners:
                if intruder != holder:
                    plugins.add_diagnostic(claims_of.refused(family, kind, intruder, claims_of.shown(plugins, holder)))
            kept = [(p, item) for p, item in real if p == holder]
            if kept:
                table.providers[kind], table[kind] = kept[0]
            continue
        if len(owners) > 1:
            table.conflicts[kind] = owners
            plugins.add_diagnostic(conflict_diagnostic(family, kind, owners))
            continue
        table.providers[kind], table[kind] = real[0]
    return table


def _kinds_of(item: Any) -> tuple[str, ...]:
    return tuple(item.kinds)


def _name_of(item: Any) -> tuple[str, ...]:
    return (item.name,)


def observers(plugins: Plugins, runtime: Runtime) -> KindTable[Observer]:
    return by_kind(plugins, "streamt_observers", OBSERVER, _kinds_of, runtime=runtime)


def planners(plugins: Plugins) -> KindTable[Planner]:
    return by_kind(plugins, "streamt_planners", PLANNER, _kinds_of)


def installed_planners() -> KindTable[Planner]:
    """The planner of each artifact kind the installed plugins serve; a kind two plugins claim is absent (``E906``)."""
    return planners(get_plugins())


def deployers(plugins: Plugins, runtime: Runtime) -> KindTable[Deployer]:
    return by_kind(plugins, "streamt_deployers", DEPLOYER, _kinds_of, runtime=runtime)


def discoverers(plugins: Plugins, runtime: Runtime) -> KindTable[DiscoverySource]:
    return by_kind(plugins, "streamt_source_discoverers", DISCOVERER, _kinds_of, runtime=runtime)


def state_backends(plugins: Plugins) -> KindTable[Any]:
    return by_kind(
        plugins,
        "streamt_state_backends",
        STATE_BACKEND,
        _name_of,
        placeholder=lambda b: not b.implemented or b.factory is None,
    )


def materializations(plugins: Plugins) -> KindTable[Any]:
    """Materializations and executors together: one name space, as ``streamt_materializations`` declares it."""
    return by_kind(
        plugins, "streamt_materializations", MATERIALIZATION, _name_of, placeholder=lambda m: not m.implemented
    )


def test_types(plugins: Plugins) -> KindTable[Any]:
    return by_kind(plugins, "streamt_test_types", TEST_TYPE, _name_of, placeholder=lambda t: not t.implemented)


def config_sections(plugins: Plugins) -> KindTable[Any]:
    """``path -> ConfigSection``; core's own sections and keys (``claims.CORE_SECTIONS``) are never a plugin's."""
    return by_kind(plugins, "streamt_config_sections", CONFIG_SECTION, _path_of, held=claims_of.CORE_SECTIONS)


def init_starters(plugins: Plugins) -> KindTable[Any]:
    """``--executor`` value -> ``InitStarter`` of ``streamt init``, in plugin order."""
    return by_kind(plugins, "streamt_init_starters", STARTER, _name_of)


def plan_file_extensions(plugins: Plugins) -> KindTable[Any]:
    """Plan-file field -> ``PlanFileExtension`` (the Kafka Streams runner's format 6)."""
    return by_kind(plugins, "streamt_plan_file_extensions", PLAN_FILE_EXTENSION, _key_of)


def removal_kinds(plugins: Plugins) -> KindTable[Any]:
    """``lifecycle`` key -> ``RemovalKind``, in plugin order (the order tombstones are named in)."""
    return by_kind(plugins, "streamt_removal_kinds", REMOVAL, _key_of)


def _key_of(removal: Any) -> tuple[str, ...]:
    return (removal.key,)


def _path_of(section: Any) -> tuple[str, ...]:
    return (section.path,)


def assertion_kinds(plugins: Plugins) -> dict[str, list[Any]]:
    """Assertion kinds are shared, not owned: several test types (and plugins) evaluate ``not_null``."""
    table: dict[str, list[Any]] = {}
    for _plugin, batch in plugins.call_each("streamt_assertion_kinds"):
        for item in batch or ():
            table.setdefault(item.name, []).append(item)
    return table


def catalog(plugins: Plugins) -> dict[str, dict[str, KnownKind]]:
    """``family -> name -> KnownKind`` in declaration order; the first entry of a name wins."""
    out: dict[str, dict[str, KnownKind]] = {}
    for _plugin, batch in plugins.call_each("streamt_known_kinds"):
        for item in batch or ():
            if isinstance(item, KnownKind):
                out.setdefault(item.family, {}).setdefault(item.name, item)
    return out


def known(plugins: Plugins, family: str) -> dict[str, KnownKind]:
    return catalog(plugins).get(family, {})


def valid_values(family: str, provided: Iterable[str], plugins: Plugins) -> tuple[str, ...]:
    """Known kinds of ``family`` in catalog order, then provided ones the catalog does not name, sorted."""
    listed = tuple(known(plugins, family))
    return listed + tuple(sorted(set(provided) - set(listed)))


def install_hint(name: str, plugins: Plugins | None = None, family: str | None = None) -> str:
    """How to get the plugin of ``name``: ``pip install 'streamt[<extra>]'`` for a known kind."""
    entries = catalog(plugins or get_plugins())
    for kind_family, names in entries.items():
        entry = names.get(name)
        if entry is not None and entry.extra and family in (None, kind_family):
            return f"Install it with: pip install 'streamt[{entry.extra}]'"
    return "Install a plugin that provides it; `streamt plugins` lists what is installed."


def unknown_suggestion(value: str, valid: tuple[str, ...]) -> str:
    """A did-you-mean for an unknown kind, else the list of valid ones."""
    return did_you_mean(value, valid) or f"Use one of: {', '.join(valid)}."
