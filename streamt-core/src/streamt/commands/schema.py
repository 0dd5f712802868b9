"""``streamt schema``: JSON Schemas of the project files, for editors (yaml-language-server) and CI."""

from __future__ import annotations

from pathlib import Path

import click

from streamt.errors import Codes, StreamtError
from streamt.result import Result

_FILES = ("project", "environment", "declarations")


@click.command("schema")
@click.option(
    "--file",
    "file",
    type=click.Choice(_FILES),
    default="project",
    show_default=True,
    help="Which file's schema to print: stream_project.yml, environments/*.yml or the declaration files.",
)
@click.option(
    "--out-dir",
    "out_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Write all three schemas into this directory (atomically) instead of printing one.",
)
def schema_command(file: str, out_dir: str | None) -> Result:
    """Print the JSON Schema of the project files (core and installed plugins)."""
    from streamt.json_output import to_json_text
    from streamt.project.json_schema import file_schemas, schema_file_name

    schemas = file_schemas()
    if out_dir is None:
        return Result(
            "schema", data={"file": file, "schema": schemas[file]}, text=to_json_text(schemas[file]), raw=True
        )
    if click.get_current_context().get_parameter_source("file") is click.core.ParameterSource.COMMANDLINE:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            "--file and --out-dir cannot be combined.",
            "Drop --file: --out-dir writes all three.",
        )
    written = write_schemas(Path(out_dir), {schema_file_name(k): to_json_text(v) for k, v in schemas.items()})
    text = "\n".join([f"Wrote {len(written)} schemas to {out_dir}", *(f"  {name}" for name in written)])
    return Result("schema", data={"directory": out_dir, "files": written}, text=text)


def write_schemas(directory: Path, documents: dict[str, str]) -> list[str]:
    """Each ``name -> text`` written atomically under ``directory``; the names, in order."""
    from streamt.fsutil import atomic_write

    for name, text in documents.items():
        try:
            atomic_write(directory / name, text.encode("utf-8"))
        except OSError as exc:
            raise StreamtError(
                Codes.E905_OUTPUT_WRITE_FAILED,
                f"Cannot write {directory / name}: {exc.strerror or type(exc).__name__}",
                "Check permissions and free space.",
            ) from None
    return list(documents)
