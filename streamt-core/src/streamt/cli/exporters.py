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
    for batch in plugins.hook.streamt_exporters():
        for exporter in batch or []:
            _mount(cli, plugins, exporter)


def _mount(cli: LazyGroup, plugins: Plugins, exporter: Exporter) -> None:
    group = cli.add_group(exporter.group, _GROUP_HELP.get(exporter.group, exporter.group))
    try:
        command = exporter.command_factory()
        if not isinstance(command, click.Command):
            raise TypeError("command_factory must return a click.Command")
    except Exception as exc:
        plugins.report(
            Codes.E901_PLUGIN_LOAD_FAILED, exporter.name, f"could not build its command: {type(exc).__name__}"
        )
        return
    group.add_command(command, exporter.name)
