"""`streamt plugins`: what is installed, at which version, with which hooks, and what each provides."""

from __future__ import annotations

from typing import Any

import click

from streamt import kinds
from streamt.artifact_kinds import artifact_kinds
from streamt.cli.lazy import LazyGroup
from streamt.plugins import Plugins, get_plugins
from streamt.result import Result

# What a plugin provides, in the order listings show it.
PROVIDES = ("commands", "exporters", "kinds", "artifact_kinds", "sections", "backends", "rules")


@click.command("plugins")
@click.option("--all", "show_all", is_flag=True, help="Include core's built-in plugin.")
def plugins_command(show_all: bool) -> Result:
    """List installed plugins with distribution, version, hooks and what each provides.

    Plugins that failed to load, and claims that were refused, are reported as errors (the rest still work).
    """
    plugins = get_plugins()
    root = click.get_current_context().find_root().command
    provided = _provided(plugins, root if isinstance(root, LazyGroup) else None)
    infos = [info for info in plugins.infos.values() if show_all or not info.builtin]
    infos.sort(key=lambda i: (not i.builtin, i.name))
    listed = []
    for info in infos:
        entry = info.to_json()
        entry["provides"] = {what: provided[what].get(info.name, []) for what in PROVIDES}
        listed.append(entry)
    data = {"count": len(infos), "plugins": listed, "failed": [d.to_json() for d in plugins.diagnostics]}
    lines = []
    for entry in listed:
        if entry["plugins_dir"]:  # clearly not an installed distribution
            lines.append(f"{entry['name']}  (unpackaged, from STREAMT_PLUGINS_DIR {entry['plugins_dir']})")
        else:
            lines.append(f"{entry['name']}  {entry['distribution'] or '-'} {entry['version'] or ''}".rstrip())
        lines.append(f"    hooks: {', '.join(entry['hooks']) or '(none)'}")
        if entry["core_requirement"]:
            lines.append(f"    streamt-core: {entry['core_requirement']}")
        for what in PROVIDES:
            if entry["provides"][what]:
                lines.append(f"    {what}: {', '.join(entry['provides'][what])}")
    if not infos:
        lines.append("No plugins installed. Add some with: pip install 'streamt[all]'")
    return Result("plugins", data=data, text="\n".join(lines), errors=tuple(plugins.diagnostics))


def _provided(plugins: Plugins, root: LazyGroup | None) -> dict[str, dict[str, list[str]]]:
    """``what -> plugin -> sorted names``; building the tables also reports their conflicts (E906) now."""
    out: dict[str, dict[str, list[str]]] = {what: {} for what in PROVIDES}

    def add(what: str, plugin: str, name: str) -> None:
        out[what].setdefault(plugin, []).append(name)

    # Declarations only (``streamt plugins`` stays fast): observers, planners, deployers and
    # discoverers import their provider modules and report conflicts when a command builds them.
    for table in (kinds.materializations(plugins), kinds.test_types(plugins)):
        for kind, plugin in table.providers.items():
            add("kinds", plugin, kind)
    for kind, plugin in artifact_kinds(plugins).table.providers.items():
        add("artifact_kinds", plugin, kind)
    for kind, plugin in kinds.state_backends(plugins).providers.items():
        add("backends", plugin, kind)
    for path, plugin in kinds.config_sections(plugins).providers.items():
        add("sections", plugin, path)
    for command, plugin in (root.claims if root is not None else {}).items():
        add("exporters" if _is_exporter(root, command) else "commands", plugin, " ".join(command))
    for plugin, codes in plugins.codes_by_plugin.items():
        for code in codes:
            add("rules", plugin, code)
    return {what: {p: sorted(set(names)) for p, names in by_plugin.items()} for what, by_plugin in out.items()}


def _is_exporter(root: Any, path: tuple[str, ...]) -> bool:
    group = root.commands.get(path[0]) if len(path) == 2 else None
    return isinstance(group, LazyGroup) and path[1] in group.owners
