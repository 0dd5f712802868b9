"""Mounting plugin commands: exporters as ``streamt export <name>`` / ``streamt docs <name>``, and
the commands of known plugins that are not installed.

Exporters mount lazily, like every other command: the group lists
``Exporter.description`` in ``--help`` and calls ``command_factory`` only when
the command runs (or its own ``--help`` is asked for), so an installed
exporter costs nothing at start-up. An exporter's ``<group> <name>`` is a claim
(``streamt.claims``): a command core or another plugin holds stays theirs (the
exporter is refused with ``E906_PLUGIN_CONFLICT``), and two plugins offering the
same name follow the one precedence rule of ``streamt.kinds``: neither is
mounted, every command carries ``E906`` naming both, and running that command
fails with it.
"""

from __future__ import annotations

import click

from streamt import claims, kinds
from streamt.capabilities import Exporter
from streamt.cli.lazy import LazyGroup
from streamt.errors import Codes
from streamt.plugins import Plugins
from streamt.untrusted import identifier

# What a plugin may name a command: shown in --help and in messages as it is.
_COMMAND_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_GROUP_HELP = {
    "export": "Generate deterministic infrastructure artifacts without applying them.",
    "docs": "Generate project documentation and interoperability metadata.",
}


def mount_exporters(cli: LazyGroup, plugins: Plugins) -> None:
    offers: dict[tuple[str, str], list[tuple[str, Exporter]]] = {}
    for plugin_name, batch in plugins.call_each("streamt_exporters"):
        for exporter in batch or []:
            if not isinstance(exporter, Exporter):
                plugins.report(
                    Codes.E901_PLUGIN_LOAD_FAILED,
                    plugin_name,
                    "returned something other than streamt.sdk.Exporter from streamt_exporters",
                )
                continue
            if not (_is_command_name(exporter.group) and _is_command_name(exporter.name)):
                shown = identifier(f"{exporter.group} {exporter.name}")
                plugins.report(
                    Codes.E901_PLUGIN_LOAD_FAILED,
                    plugin_name,
                    f"offers an exporter whose name is no command name: {shown}",
                )
                continue
            offers.setdefault((exporter.group, exporter.name), []).append((plugin_name, exporter))
    for (group_name, name), claimed in offers.items():
        path = f"{group_name} {name}"
        owners = tuple(sorted({plugin for plugin, _ in claimed}))
        command_holder = _command_holder(cli, group_name, name)
        if command_holder is not None:  # a command core or a plugin mounted: exporters only take it by standing
            better = [p for p in owners if claims.standing(plugins, p) < claims.standing(plugins, command_holder)]
            for plugin in owners:
                if plugin not in better:
                    plugins.add_diagnostic(
                        claims.refused(kinds.EXPORTER, path, plugin, claims.shown(plugins, command_holder))
                    )
            if not better or not isinstance(cli.commands.get(group_name), LazyGroup):
                continue
            for plugin in better[:1]:
                plugins.add_diagnostic(claims.refused(kinds.EXPORTER, path, command_holder, plugin))
            owners = tuple(better)
            claimed = [(p, e) for p, e in claimed if p in better]
        group = cli.add_group(group_name, _GROUP_HELP.get(group_name, group_name))
        holder = claims.keeper(plugins, path, owners) if len(owners) > 1 else None
        if holder is not None:
            for plugin in owners:
                if plugin != holder:
                    plugins.add_diagnostic(claims.refused(kinds.EXPORTER, path, plugin, claims.shown(plugins, holder)))
            claimed = [(p, e) for p, e in claimed if p == holder]
            if not claimed:
                continue
        elif len(owners) > 1:
            conflict = kinds.conflict_diagnostic(kinds.EXPORTER, path, owners)
            plugins.add_diagnostic(conflict)
            group.add_conflict(name, conflict)
            continue
        plugin_name, exporter = claimed[0]  # a plugin's own duplicates keep its first
        group.commands.pop(name, None)
        group.add_lazy_factory(name, exporter.command_factory, exporter.description, plugin_name)
        cli.claims[(group_name, name)] = plugin_name


def _is_command_name(name: object) -> bool:
    return isinstance(name, str) and 0 < len(name) <= 63 and name[0] not in "_-" and set(name) <= _COMMAND_CHARACTERS


def _command_holder(cli: LazyGroup, group_name: str, name: str) -> str | None:
    """Who holds ``group_name name`` as a command, or ``group_name`` itself as a command that is no group."""
    group = cli.commands.get(group_name)
    if (group_name,) in cli.claims and not isinstance(group, click.Group):
        return cli.claims[(group_name,)]
    return cli.claims.get((group_name, name))


def mount_expected(cli: LazyGroup, plugins: Plugins) -> None:
    """``<group> <name>`` and top-level ``<name>`` commands of the known-kinds catalog that no installed plugin added.

    Invoking one fails with ``E903_PLUGIN_REQUIRED`` and the install command,
    instead of click's bare "no such command".
    """
    for entry in kinds.known(plugins, kinds.COMMAND).values():
        group_name, _, name = entry.name.rpartition(" ")
        group = cli.commands.get(group_name) if group_name else cli
        if isinstance(group, LazyGroup) and name not in group.commands and name not in group.lazy_commands:
            group.expect(name, entry.capability or entry.extra, entry.description)
