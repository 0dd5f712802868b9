"""``streamt docs generate``: the project as a static HTML site (index, pages, lineage graph)."""

from __future__ import annotations

import os
from pathlib import Path

import click

from streamt.cli.options import project_options, quiet_option
from streamt.errors import StreamtError
from streamt.result import Result


@click.command("generate")
@project_options
@click.option("--output", "output", default=None, help="Output directory (default: site/ in the project).")
@quiet_option
def docs_generate(project_dir: str, env: str | None, output: str | None, quiet: bool) -> Result:
    """Generate an HTML documentation site."""
    from streamt.compile.physical import readable_artifacts
    from streamt.docs_site import site_files, write_site
    from streamt.plugins import get_plugins
    from streamt.progress import Step, for_command, phase
    from streamt.project import load_project
    from streamt.validation import validate_project

    project = load_project(project_dir, env, lazy_secrets=True)
    report = validate_project(project)
    if report.errors:
        raise StreamtError.from_diagnostics(list(report.errors))
    warnings = list(report.warnings)
    # The site documents declarations; a materialization whose plugin is missing only loses its
    # artifacts table (as in `show`), it does not stop the documentation of everything else.
    artifacts, left_out = readable_artifacts(project, "Compiled artifacts left out of the site")
    warnings += left_out
    contributions = [c for batch in get_plugins().hook.streamt_docs_site(project=project) for c in batch or ()]
    if output is not None:
        target, shown = Path(output), output.rstrip("/") or "/"
    else:
        target, shown = Path(project_dir) / "site", os.path.normpath(os.path.join(project_dir, "site"))
    resources = len(project.sources) + len(project.models) + len(project.tests) + len(project.exposures)
    progress = for_command(quiet)
    try:
        with phase(progress, Step("render", "site", f"pages of {resources} resource(s)")):
            files = site_files(project, list(artifacts), contributions)
        with phase(progress, Step("write", "site", shown)):
            write_site(target, files, Path(project.root))
    finally:
        progress.close()
    pages = sorted(p for p in files if p.endswith(".html"))
    data = {
        "output_dir": shown,
        "pages": len(pages),
        "files": len(files) + 1,
        "bytes": sum(len(b) for b in files.values()),
        "index": f"{shown}/index.html",
        "lineage": f"{shown}/lineage.html",
        "counts": {kind: sum(1 for p in pages if p.startswith(f"{kind}s/")) for kind in _KINDS},
    }
    text = f"Generated {data['pages']} pages in {shown}/\n  open {data['index']}"
    return Result("docs generate", data=data, text=text, warnings=tuple(warnings))


_KINDS = ("source", "model", "test", "exposure")
