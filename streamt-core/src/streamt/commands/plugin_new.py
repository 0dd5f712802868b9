"""`streamt plugin new KIND NAME`: write a working plugin distribution to start from."""

from __future__ import annotations

from pathlib import Path

import click

from streamt.result import Result
from streamt.scaffold import KINDS, new_distribution


@click.command("new")
@click.argument("kind", type=click.Choice(KINDS))
@click.argument("name")
@click.option(
    "--directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Where to create the streamt-NAME directory.",
)
def plugin_new(kind: str, name: str, directory: Path) -> Result:
    """Write a plugin distribution: pyproject with entry point and core range, module, kit test, README."""
    root, files = new_distribution(kind, name, directory)
    data = {"kind": kind, "name": name, "distribution": root.name, "path": str(root), "files": files}
    text = "\n".join(
        [f"Wrote {root} ({kind} plugin '{name}'):", *(f"  {f}" for f in files), f"Next: pip install -e {root}"]
    )
    return Result("plugin new", data=data, text=text)
