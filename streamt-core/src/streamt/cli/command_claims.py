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
from typing import Any

import click

from streamt import claims
from streamt.capabilities import COMMAND
from streamt.cli.lazy import LazyGroup
from streamt.errors import Codes
from streamt.plugins import Plugins

Path = tuple[str, ...]


# What is mounted at one path: (the group that holds it, its name, the eager command, the lazy source).
# A plain tuple, so that building and comparing trees is C-level work: the CLI does it on every start.
Entry = tuple[click.Group, str, Any, Any]


def keep_only_what_changed(entry: Entry, before: Entry) -> None:
    """Drop the holder's form of the command beside the claimant's new one (an eager command wins a lazy one)."""
    group, name, eager, lazy = entry
    eager_changed, lazy_changed = eager is not before[2], lazy is not before[3]
    if eager is not None and not eager_changed and lazy_changed:
        group.commands.pop(name, None)
    if isinstance(group, LazyGroup) and lazy is not None and not lazy_changed and eager_changed:
        group.lazy_commands.pop(name, None)


def restore(entry: Entry) -> None:
    """Put this form of the path back in its group."""
    group, name, eager, lazy = entry
    _put(group.commands, name, eager)
    if isinstance(group, LazyGroup):
        _put(group.lazy_commands, name, lazy)


def mount_commands(root: LazyGroup, plugins: Plugins) -> dict[Path, str]:
    """Run every plugin's ``streamt_commands`` on ``root``; returns (and keeps on ``root``) the holders."""
    holders: dict[Path, str] = {}
    caller = plugins.manager.hook.streamt_commands
    tree = snapshot(root)
    for impl in reversed(caller.get_hookimpls()):  # core first (tryfirst), then in load order, as call_each
        plugins.call_each_of((impl,), "streamt_commands", cli=root)
        tree = settle(root, tree, holders, impl.plugin_name, plugins)  # also what a hook that raised had mounted
    root.claims = holders
    return holders


def settle(
    root: LazyGroup, before: dict[Path, Entry], holders: dict[Path, str], claimant: str, plugins: Plugins
) -> dict[Path, Entry]:
    """Keep what ``claimant``'s hook added, put back what it took from a holder that stands as high or higher.

    Returns the tree as it is then (the next plugin's ``before``). Putting a path back changes the
    tree, so it is read again after each one; additions, the common case, are settled in one pass.
    """
    taken: set[Path] = set()
    restored: set[Path] = set()
    reshaped = False  # a path taken over lost the holder's form: the tree is not ``after`` any more
    while True:
        after = snapshot(root)
        changed = sorted(
            (p for p in before.keys() | after.keys() if p not in taken and after.get(p) != before.get(p)),
            key=len,
        )
        if not changed:
            return after
        for path in changed:
            if path in taken:
                continue
            holder = holders.get(path)
            if path not in before or holder is None:
                holders[path] = claimant
                taken.add(path)
            elif path in restored:  # putting it back did not take: the hook changed the tree's machinery itself
                taken.add(path)
                problem = f"changed the command '{' '.join(path)}' beyond repair"
                plugins.report(Codes.E901_PLUGIN_LOAD_FAILED, claimant, problem)
            elif claims.standing(plugins, claimant) < claims.standing(plugins, holder):
                if path in after:
                    keep_only_what_changed(after[path], before[path])
                    reshaped = True
                under = [p for p in after.keys() | before.keys() if p[: len(path)] == path]
                taken.update(under)
                for inner in under:  # the path and what is under it are the claimant's now
                    if inner in after:
                        holders[inner] = claimant
                    else:
                        holders.pop(inner, None)
                plugins.add_diagnostic(claims.refused(COMMAND, " ".join(path), holder, claimant))
            else:
                restore(before[path])
                restored.add(path)
                plugins.add_diagnostic(claims.refused(COMMAND, " ".join(path), claimant, claims.shown(plugins, holder)))
                break  # the tree changed: read it again
        else:
            return snapshot(root) if reshaped else after


def snapshot(group: click.Group, prefix: Path = ()) -> dict[Path, Entry]:
    """Every command path under ``group`` with what is mounted there."""
    out: dict[Path, Entry] = {}
    lazy = group.lazy_commands if isinstance(group, LazyGroup) else {}
    for name in set(group.commands) | set(lazy):
        eager = group.commands.get(name)
        path = (*prefix, name)
        out[path] = (group, name, eager, lazy.get(name))
        if isinstance(eager, click.Group):
            out.update(snapshot(eager, path))
    return out


def _put(table: MutableMapping[str, Any], name: str, value: Any) -> None:
    if value is None:
        table.pop(name, None)
    else:
        table[name] = value
