"""Mounting plugin commands: exporters as ``streamt export <name>`` / ``streamt docs <name>``, and
the commands of known plugins that are not installed.

Exporters mount lazily, like every other command: the group lists
``Exporter.description`` in ``--help`` and calls ``command_factory`` only when
the command runs (or its own ``--help`` is asked for), so an installed
exporter costs nothing at start-up.
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
    for plugin_name, batch in plugins.call_each("streamt_exporters"):
        for exporter in batch or []:
            if not isinstance(exporter, Exporter):
                plugins.report(
                    Codes.E901_PLUGIN_LOAD_FAILED,
                    plugin_name,
                    "returned something other than streamt.sdk.Exporter from streamt_exporters",
                )
                continue
            group = cli.add_group(exporter.group, _GROUP_HELP.get(exporter.group, exporter.group))
            group.add_lazy_factory(exporter.name, exporter.command_factory, exporter.description, plugin_name)


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
