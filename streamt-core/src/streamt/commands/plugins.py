"""`streamt plugins`: what is installed, at which version, with which hooks."""

from __future__ import annotations

import click

from streamt import kinds
from streamt.plugins import get_plugins
from streamt.result import Result


@click.command("plugins")
@click.option("--all", "show_all", is_flag=True, help="Include core's built-in plugin.")
def plugins_command(show_all: bool) -> Result:
    """List installed plugins with distribution, version and hooks.

    Plugins that failed to load are reported as errors (the rest still work).
    """
    plugins = get_plugins()
    kinds.check_conflicts(plugins)  # two plugins claiming one kind are reported here too (E906)
    infos = [info for info in plugins.infos.values() if show_all or not info.builtin]
    infos.sort(key=lambda i: (not i.builtin, i.name))
    data = {
        "count": len(infos),
        "plugins": [info.to_json() for info in infos],
        "failed": [d.to_json() for d in plugins.diagnostics],
    }
    lines = []
    for info in infos:
        lines.append(f"{info.name}  {info.distribution or '-'} {info.version or ''}".rstrip())
        lines.append(f"    hooks: {', '.join(info.hooks) or '(none)'}")
    if not infos:
        lines.append("No plugins installed. Add some with: pip install 'streamt[all]'")
    return Result("plugins", data=data, text="\n".join(lines), errors=tuple(plugins.diagnostics))
