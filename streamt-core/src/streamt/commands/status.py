"""`streamt status`: deployment status of the selected managed resources."""

from __future__ import annotations

import click

from streamt.cli.options import env_option, project_dir_option
from streamt.result import Result


@click.command("status")
@project_dir_option
@env_option
@click.option("--lag", is_flag=True, help="Show consumer lag and message counts for topics.")
@click.option("--consumer-groups", is_flag=True, help="Show per-consumer-group lag.")
@click.option("--include-external", is_flag=True, help="Also inspect external sources and compiled artifacts.")
@click.option("--health", is_flag=True, help="Exit 1 for missing, drifted, unhealthy or unavailable resources.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
@click.option("--filter", "pattern", default=None, help="Filter resources by name pattern (glob-style).")
def status_command(
    project_dir: str,
    env: str | None,
    lag: bool,
    consumer_groups: bool,
    include_external: bool,
    health: bool,
    fmt: str,
    pattern: str | None,
) -> Result:
    """Check deployment status of managed resources."""
    import json

    from streamt.compile import load_and_compile
    from streamt.plugins import get_plugins
    from streamt.status.render import status_text
    from streamt.status.report import is_healthy, matches, sections, status_report

    loaded = load_and_compile(project_dir, env)
    # Filtering happens before any provider connection.
    selected = tuple(a for a in loaded.compiled.artifacts if matches(a, pattern))
    plugins = get_plugins()
    listed = sections(plugins)
    report = status_report(
        loaded.project,
        selected,
        plugins,
        listed=listed,
        include_external=include_external,
        lag=lag,
        consumer_groups=consumer_groups,
    )
    data = {
        "project": loaded.project.name,
        "environment": loaded.project.env,
        "observation_scope": "managed_and_external" if include_external else "managed",
        **report,
        "healthy": is_healthy(report),
    }
    text = json.dumps(data, indent=2, sort_keys=True) if fmt == "json" else status_text(report, listed)
    exit_code = 1 if health and not data["healthy"] else None
    return Result("status", data=data, text=text, warnings=loaded.warnings, raw=fmt == "json", force_exit=exit_code)
