"""Mounting plugin commands: exporters as ``streamt export <name>`` / ``streamt docs <name>``, and
the commands of known plugins that are not installed.

Exporters mount lazily, like every other command: the group lists
``Exporter.description`` in ``--help`` and calls ``command_factory`` only when
the command runs (or its own ``--help`` is asked for), so an installed
exporter costs nothing at start-up. Two plugins offering the same
``<group> <name>`` follow the one precedence rule of ``streamt.kinds``: neither
is mounted, every command carries ``E906_PLUGIN_CONFLICT`` naming both, and
running that command fails with it.
"""

from __future__ import annotations

from streamt import kinds
from streamt.capabilities import Exporter
from streamt.cli.lazy import LazyGroup
from streamt.errors import Codes
from streamt.plugins import Plugins

_GROUP_HELP = {
    "export": "Generate deterministic infrastructure artifacts without applying them.",
    "docs": "Generate project documentation and interoperability metadata.",
}


def mount_exporters(cli: LazyGroup, plugins: Plugins) -> None:
    claims: dict[tuple[str, str], list[tuple[str, Exporter]]] = {}
    for plugin_name, batch in plugins.call_each("streamt_exporters"):
        for exporter in batch or []:
            if not isinstance(exporter, Exporter):
                plugins.report(
                    Codes.E901_PLUGIN_LOAD_FAILED,
                    plugin_name,
                    "returned something other than streamt.sdk.Exporter from streamt_exporters",
                )
                continue
            claims.setdefault((exporter.group, exporter.name), []).append((plugin_name, exporter))
    for (group_name, name), claimed in claims.items():
        group = cli.add_group(group_name, _GROUP_HELP.get(group_name, group_name))
        owners = tuple(sorted({plugin for plugin, _ in claimed}))
        if len(owners) > 1:
            conflict = kinds.conflict_diagnostic(kinds.EXPORTER, f"{group_name} {name}", owners)
            plugins.add_diagnostic(conflict)
            group.add_conflict(name, conflict)
            continue
        plugin_name, exporter = claimed[0]  # a plugin's own duplicates keep its first
        group.add_lazy_factory(name, exporter.command_factory, exporter.description, plugin_name)


def mount_expected(cli: LazyGroup, plugins: Plugins) -> None:
    """``<group> <name>`` commands of the known-kinds catalog that no installed plugin added.

    Invoking one fails with ``E903_PLUGIN_REQUIRED`` and the install command,
    instead of click's bare "no such command".
    """
    for entry in kinds.known(plugins, kinds.COMMAND).values():
        group_name, _, name = entry.name.partition(" ")
        group = cli.commands.get(group_name)
        if isinstance(group, LazyGroup) and name not in group.commands and name not in group.lazy_commands:
            group.expect(name, entry.capability or entry.extra, entry.description)
