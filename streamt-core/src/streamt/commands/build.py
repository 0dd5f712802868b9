"""`streamt build`: the compiled artifacts plus ``manifest.json`` and ``checksums.sha256``."""

from __future__ import annotations

import click

from streamt.cli.options import env_option, project_dir_option
from streamt.commands.compile import output_target, produce
from streamt.result import Result


@click.command("build")
@project_dir_option
@env_option
@click.option("--output-dir", default=None, help="Output directory (default: build/ in the project).")
def build_command(project_dir: str, env: str | None, output_dir: str | None) -> Result:
    """Compile and package artifacts with manifest and checksums."""
    from streamt.compile import CHECKSUMS, MANIFEST

    target, shown = output_target(project_dir, output_dir, "build")
    loaded, files, summaries = produce(project_dir, env, target, checksums=True)
    artifacts = [path for path in sorted(files) if "/" in path]
    lines = ["Building project...", *(f"  {path}" for path in artifacts)]
    lines += ["", f"Manifest: {shown}/{MANIFEST}", f"Checksums: {shown}/{CHECKSUMS}"]
    data = {
        "artifacts": summaries,
        "checksums": f"{shown}/{CHECKSUMS}",
        "environment": loaded.compiled.environment,
        "files": sorted(files),
        "manifest": f"{shown}/{MANIFEST}",
        "output_dir": shown,
    }
    return Result("build", data=data, text="\n".join(lines), warnings=loaded.warnings)
