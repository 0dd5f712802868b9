"""Mounting exporter plugins as ``streamt export <name>`` / ``streamt docs <name>``."""

from __future__ import annotations

import click

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
            _mount(cli, plugins, plugin_name, exporter)


def _mount(cli: LazyGroup, plugins: Plugins, plugin_name: str, exporter: Exporter) -> None:
    try:
        if not isinstance(exporter, Exporter):
            raise TypeError("streamt_exporters must return streamt.capabilities.Exporter objects")
        command = exporter.command_factory()
        if not isinstance(command, click.Command):
            raise TypeError("command_factory must return a click.Command")
    except Exception as exc:
        plugins.report(Codes.E901_PLUGIN_LOAD_FAILED, plugin_name, f"could not build an exporter command: {exc}")
        return
    group = cli.add_group(exporter.group, _GROUP_HELP.get(exporter.group, exporter.group))
    group.add_command(command, exporter.name)
