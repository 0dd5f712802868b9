"""Claimed names: who keeps a command path, a kind or a config section that more than one plugin offers.

Every name a plugin offers is a claim: a command path (``validate``, ``docs
dictionary``), an exporter, a materialization, an artifact kind, a state
backend, a config section. Standing decides who keeps a name:

1. core (``streamt.builtin``) keeps its names: no plugin can take them;
2. a plugin streamt ships (``builtin.FIRST_PARTY``) keeps the names it claims
   against any other plugin (while it is not installed, a name it would claim
   is free: the catalog only says where to get it);
3. between two other plugins, nobody stands higher: a command stays with the
   plugin that mounted it first, and a kind goes to neither (``kinds.by_kind``).

A claim that is refused is ``E906_PLUGIN_CONFLICT`` naming the claimant and
the holder, reported on every command; the holder keeps the name and works as
if the claimant were not installed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from streamt.builtin import FIRST_PARTY
from streamt.errors import Codes, Diagnostic
from streamt.plugins import Plugins
from streamt.untrusted import identifier

CORE = "streamt-core"
_MODEL_KEYS = (
    *("name", "description", "owner", "tags", "sql", "from", "key", "primary_key", "executor", "group", "version"),
    *("deprecation", "region", "materialized", "topic", "event_time", "security", "access", "columns", "contract"),
    # Not `connector`: the legacy spelling of streamt-connect's sink section, which core still folds.
    *("ml_outputs", "ownership", "advanced"),
)
_SOURCE_KEYS = (
    *("name", "topic", "description", "owner", "cluster", "tags", "region", "schema", "columns", "freshness"),
    *("event_time", "advanced", "ownership"),
)
# The config sections and keys core reads itself (``streamt.project.schema``; a test keeps them equal),
# here so that ``streamt plugins`` can list sections without loading the project model.
CORE_SECTIONS: Mapping[str, str] = dict.fromkeys(
    (
        "runtime.kafka",
        "runtime.schema_registry",
        "deployment_state.backend",
        "deployment_state.namespace",
        "deployment_state.lock_timeout_seconds",
        # A model's core keys (``schema.MODEL``): a plugin's model section is any other key.
        *(f"model.{key}" for key in _MODEL_KEYS),
        *(f"source.{key}" for key in _SOURCE_KEYS),
    ),
    CORE,
)
CORE_STANDING, FIRST_PARTY_STANDING, OTHER_STANDING = 0, 1, 2

_FIRST_PARTY_DISTRIBUTIONS = frozenset(name for names in FIRST_PARTY.values() for name in names)


def standing(plugins: Plugins, name: str) -> int:
    """0 for core, 1 for a plugin streamt ships, 2 for any other plugin."""
    info = plugins.infos.get(name)
    if info is None:
        return OTHER_STANDING
    if info.builtin:
        return CORE_STANDING
    if info.distribution and _normal(info.distribution) in _FIRST_PARTY_DISTRIBUTIONS:
        return FIRST_PARTY_STANDING
    return OTHER_STANDING


def shown(plugins: Plugins, name: str) -> str:
    """How a holder is named in messages: core as ``streamt-core``, a plugin by its entry-point name."""
    info = plugins.infos.get(name)
    return CORE if info is not None and info.builtin else name


def keeper(plugins: Plugins, kind: str, owners: Iterable[str], held: Mapping[str, str] | None = None) -> str | None:
    """Who keeps ``kind``: the one claimant standing highest, or core; ``None`` when nobody stands higher.

    ``held`` names kinds core owns without claiming them through a hook (its own config sections).
    """
    if held is not None and kind in held:
        return held[kind]
    claimants = sorted(set(owners))
    best = min((standing(plugins, p) for p in claimants), default=OTHER_STANDING)
    top = [p for p in claimants if standing(plugins, p) == best]
    return top[0] if best < OTHER_STANDING and len(top) == 1 else None


def refused(family: str, kind: str, claimant: str, holder: str) -> Diagnostic:
    """``E906``: ``claimant`` offered ``kind``, which ``holder`` keeps."""
    what = f"{family.replace('_', ' ')} '{identifier(kind)}'"
    return Diagnostic(
        Codes.E906_PLUGIN_CONFLICT,
        f"Plugin '{claimant}' claims the {what}, which '{holder}' holds; the claim is refused and '{holder}' keeps it.",
        f"Rename it in '{claimant}', or disable that plugin with STREAMT_DISABLED_PLUGINS.",
        details={
            "family": family,
            "kind": identifier(kind),
            "plugins": [holder, claimant],
            "holder": holder,
            "plugin": claimant,
        },
    )


def _normal(name: str) -> str:
    # Distribution names of the extras have single separators; no pattern needed (this runs on every start).
    return name.lower().replace("_", "-").replace(".", "-")
