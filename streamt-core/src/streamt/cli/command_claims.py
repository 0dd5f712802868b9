"""Mounting ``streamt_commands``: each plugin's commands are claims, and a command path keeps its holder.

A plugin's hook receives the root group and may do anything to the tree
(``add_command``, ``add_lazy_command``, a new group, writing to
``commands``), so what it claimed is read afterwards: the tree is compared
with what it was before that plugin's hook ran. A new path is the plugin's;
a path another plugin or core held is put back as it was and the claim is
``E906`` (``streamt.claims``), unless the claimant stands higher (a plugin
streamt ships over any other plugin). The holders are kept on the root group
as ``claims`` (path -> plugin), for exporters and ``streamt plugins``.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, NamedTuple

import click

from streamt import claims
from streamt.capabilities import COMMAND
from streamt.cli.lazy import LazyGroup
from streamt.errors import Codes
from streamt.plugins import Plugins

Path = tuple[str, ...]


class Entry(NamedTuple):
    """What is mounted at one path: the group that holds it, and its eager and lazy forms."""

    group: click.Group
    name: str
    eager: Any
    lazy: Any

    def same(self, other: Entry | None) -> bool:
        return other is not None and (self.group, self.eager, self.lazy) == (other.group, other.eager, other.lazy)

    def keep_only_what_changed(self, before: Entry) -> None:
        """Drop the holder's form of the command beside the claimant's new one (an eager command wins a lazy one)."""
        eager_changed, lazy_changed = self.eager is not before.eager, self.lazy is not before.lazy
        if self.eager is not None and not eager_changed and lazy_changed:
            self.group.commands.pop(self.name, None)
        if isinstance(self.group, LazyGroup) and self.lazy is not None and not lazy_changed and eager_changed:
            self.group.lazy_commands.pop(self.name, None)

    def restore(self) -> None:
        _put(self.group.commands, self.name, self.eager)
        if isinstance(self.group, LazyGroup):
            _put(self.group.lazy_commands, self.name, self.lazy)


def mount_commands(root: LazyGroup, plugins: Plugins) -> dict[Path, str]:
    """Run every plugin's ``streamt_commands`` on ``root``; returns (and keeps on ``root``) the holders."""
    holders: dict[Path, str] = {}
    caller = plugins.manager.hook.streamt_commands
    for impl in reversed(caller.get_hookimpls()):  # core first (tryfirst), then in load order, as call_each
        before = snapshot(root)
        plugins.call_each_of((impl,), "streamt_commands", cli=root)
        settle(root, before, holders, impl.plugin_name, plugins)  # also what a hook that raised had mounted
    root.claims = holders
    return holders


def settle(
    root: LazyGroup, before: dict[Path, Entry], holders: dict[Path, str], claimant: str, plugins: Plugins
) -> None:
    """Keep what ``claimant``'s hook added, put back what it took from a holder that stands as high or higher."""
    taken: set[Path] = set()
    restored: set[Path] = set()
    while True:
        after = snapshot(root)
        changed = sorted(
            (p for p in before.keys() | after.keys() if p not in taken and not after.get(p, _NONE).same(before.get(p))),
            key=len,
        )
        if not changed:
            return
        path = changed[0]
        holder = holders.get(path)
        if path not in before or holder is None:
            holders[path] = claimant
            taken.add(path)
        elif path in restored:  # putting it back did not take: the hook changed the tree's machinery itself
            taken.add(path)
            plugins.report(
                Codes.E901_PLUGIN_LOAD_FAILED, claimant, f"changed the command '{' '.join(path)}' beyond repair"
            )
        elif claims.standing(plugins, claimant) < claims.standing(plugins, holder):
            if path in after:
                after[path].keep_only_what_changed(before[path])
            taken.update(p for p in after.keys() | before.keys() if p[: len(path)] == path)
            for inner in [p for p in holders if p[: len(path)] == path]:
                holders[inner] = claimant
            plugins.add_diagnostic(claims.refused(COMMAND, " ".join(path), holder, claimant))
        else:
            before[path].restore()
            restored.add(path)
            plugins.add_diagnostic(claims.refused(COMMAND, " ".join(path), claimant, claims.shown(plugins, holder)))


def snapshot(group: click.Group, prefix: Path = ()) -> dict[Path, Entry]:
    """Every command path under ``group`` with what is mounted there."""
    out: dict[Path, Entry] = {}
    lazy = group.lazy_commands if isinstance(group, LazyGroup) else {}
    for name in set(group.commands) | set(lazy):
        eager = group.commands.get(name)
        path = (*prefix, name)
        out[path] = Entry(group, name, eager, lazy.get(name))
        if isinstance(eager, click.Group):
            out.update(snapshot(eager, path))
    return out


def _put(table: MutableMapping[str, Any], name: str, value: Any) -> None:
    if value is None:
        table.pop(name, None)
    else:
        table[name] = value


class _Nothing:
    def same(self, other: Entry | None) -> bool:
        return other is None


_NONE: Any = _Nothing()
