"""The ``lifecycle`` block: removal tombstones, whose kinds plugins own (``streamt_removal_kinds``).

Core knows no tombstone kind. Each list under ``lifecycle`` belongs to the plugin whose
``RemovalKind`` registers its key: the loader checks and structures its entries through that
registration, ``validate`` runs its ``check``, and a full compile adds one removal artifact per
entry (``RemovalKind.tombstone``). A key the known-kinds catalog names (family ``removal``) but no
installed plugin claims is kept as written, and compiling it is ``E903`` with the extra to install.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import attrs

from streamt import kinds
from streamt.artifacts import Artifact
from streamt.capabilities import REMOVAL, KnownKind, RemovalKind
from streamt.errors import Codes, Diagnostic
from streamt.plugins import Plugins, get_plugins
from streamt.project.schema import ANY
from streamt.project.sections import schema_node

BLOCK = "lifecycle"


@attrs.frozen
class Registry:
    """The removal kinds installed plugins claim (by ``lifecycle`` key, in plugin order) and the catalog's."""

    claimed: Mapping[str, RemovalKind]
    known: Mapping[str, KnownKind]

    def lists(self) -> tuple[str, ...]:
        """Every accepted key: the claimed ones first, in plugin order, then the known unclaimed ones."""
        return (*self.claimed, *sorted(set(self.known) - set(self.claimed)))


def registry(plugins: Plugins | None = None) -> Registry:
    plugins = plugins or get_plugins()
    return Registry(claimed=dict(kinds.removal_kinds(plugins)), known=kinds.known(plugins, REMOVAL))


def holder(removal: RemovalKind) -> type[Any]:
    """An ``attrs`` class with one field, the list's key: its entries structured as core's blocks are
    (a problem is reported at ``lifecycle.<key>.<index>...``, as for any other block)."""
    return _holder(removal.key, removal.model)  # type: ignore[arg-type]  # a class is hashable


@functools.cache
def _holder(key: str, model: Any) -> type[Any]:
    entries = attrs.field(type=tuple[model, ...])  # type: ignore[valid-type]
    return attrs.make_class(f"Lifecycle_{key}", {key: entries}, frozen=True)


def accepted_keys(node: dict[str, Any], removals: Registry) -> dict[str, Any]:
    """``node`` (the project file's schema) with each removal kind's entry keys under ``lifecycle``."""
    claimed = removals.claimed
    block = {key: [schema_node(claimed[key].keys)] if key in claimed else ANY for key in removals.lists()}
    return {**node, BLOCK: block}


def tombstone_artifacts(project: Any, plugins: Plugins) -> tuple[list[Artifact], list[Diagnostic]]:
    """The removal artifact of every tombstone, and ``E903`` for a list whose plugin is missing."""
    claimed = kinds.removal_kinds(plugins)
    artifacts: list[Artifact] = []
    problems: list[Diagnostic] = []
    for key, entries in project.lifecycle.removals.items():
        removal = claimed.get(key)
        if removal is None:
            problems.append(
                Diagnostic(
                    Codes.E903_PLUGIN_REQUIRED,
                    f"No installed plugin compiles '{BLOCK}.{key}' tombstones.",
                    kinds.install_hint(key, plugins, REMOVAL),
                    details={"capability": f"{BLOCK}.{key}"},
                )
            )
            continue
        artifacts.extend(removal.tombstone(entry) for entry in entries)
    return artifacts, problems


def checks(project: Any, plugins: Plugins | None = None) -> list[Diagnostic]:
    """Each removal kind's ``check`` of its written entries (``validate``)."""
    out: list[Diagnostic] = []
    for key, removal in kinds.removal_kinds(plugins or get_plugins()).items():
        entries = project.lifecycle.entries(key)
        if entries and removal.check is not None:
            out.extend(removal.check(entries, project))
    return out
