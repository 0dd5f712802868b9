"""``streamt observe``: live runtime health of the project's models (read-only)."""

from __future__ import annotations

import click

from streamt.cli.options import project_options
from streamt.errors import Codes, StreamtError, did_you_mean
from streamt.result import Result


@click.command("observe")
@project_options
@click.option("--model", "model", default=None, help="Observe a single model by name.")
@click.option(
    "--watch",
    "interval",
    type=click.FloatRange(min=1, max=3600),
    default=None,
    help="Take a snapshot every SECONDS until interrupted; the exit status is the last snapshot's health.",
)
@click.option(
    "--count",
    type=click.IntRange(min=1),
    default=None,
    help="With --watch: stop after this many snapshots.",
)
def observe(project_dir: str, env: str | None, model: str | None, interval: float | None, count: int | None) -> Result:
    """Show live runtime health."""
    if interval is None:
        if count is not None:
            raise StreamtError(Codes.E900_USAGE_ERROR, "--count needs --watch.", "Add --watch SECONDS.")
        return _snapshot(project_dir, env, model)
    from streamt.observe.watch import watch

    context = click.get_current_context().obj
    return watch(lambda: _snapshot(project_dir, env, model), interval, count, context.stdout, context.json)


def _snapshot(project_dir: str, env: str | None, model: str | None) -> Result:
    from streamt.compile import load_and_compile
    from streamt.observe import UNITS, observe_models, observe_text
    from streamt.plugins import get_plugins

    loaded = load_and_compile(project_dir, env)
    project = loaded.project
    if model is not None and project.model(model) is None:
        names = [m.name for m in project.models]
        raise StreamtError(Codes.E102_MODEL_NOT_FOUND, f"Model '{model}' not found", did_you_mean(model, names))
    # Declared-only (external) resources are never read, as in status; removals and subjects have no
    # runtime to observe (status shows subjects); test jobs belong to `streamt test`.
    owners = {model} if model is not None else {d.name for d in (*project.sources, *project.models)}
    artifacts = [
        a
        for a in loaded.compiled.artifacts
        if a.ownership != "external"
        and not a.kind.endswith("_removal")
        and a.kind not in ("test_job", "schema")
        and a.name in owners
    ]
    rows = observe_models(project, artifacts, get_plugins())
    healthy = all(r.get("healthy") is not False for m in rows for r in m["resources"])
    data = {"project": project.name, "environment": project.env, "models": rows, "healthy": healthy, "units": UNITS}
    return Result("observe", data=data, text=observe_text(rows), warnings=loaded.warnings)
