"""``streamt init``: scaffold mode (a minimal project that validates cleanly), or ``--discover`` (see discovery).

``--executor flink`` (the default) writes core's scaffold; every other ``--executor`` value is a
plugin's starter (``streamt_init_starters``: the Kafka Streams starter is streamt-kstreams'),
whose options ``init`` lists after ``--executor`` and whose files it writes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import click

from streamt import kinds
from streamt.cli.options import quiet_option
from streamt.errors import Codes, StreamtError
from streamt.gitignore import with_gitignore
from streamt.plugins import get_plugins
from streamt.project.json_schema import with_editor_schemas
from streamt.result import Result

_PROJECT = """\
apiVersion: streamt.dev/v1alpha1

project:
  name: {name}
  version: "0.1.0"

runtime:
  kafka:
    bootstrap_servers: ${{KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}}
  flink:
    default: local
    clusters:
      local:
        rest_url: ${{FLINK_REST_URL:-http://localhost:8082}}
        sql_gateway_url: ${{FLINK_SQL_GATEWAY_URL:-http://localhost:8084}}

defaults:
  topic:
    partitions: 1
    replication_factor: 1
"""

_SOURCES = """\
sources:
  - name: events_raw
    topic: events.raw.v1
    description: Raw events (replace with your input topic)
    columns:
      - name: event_id
        type: STRING
      - name: payload
        type: STRING
"""

_MODELS = """\
models:
  - name: events_clean
    description: Events with an id
    materialized: flink
    sql: |
      SELECT event_id, payload
      FROM {{ source("events_raw") }}
      WHERE event_id IS NOT NULL
    advanced:
      topic:
        name: events.clean.v1
"""


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


SCAFFOLD = "flink"  # core's own scaffold; any other --executor is a plugin's starter


def _starters() -> dict[str, Any]:
    return {name: s for name, s in kinds.init_starters(get_plugins()).items() if name != SCAFFOLD}


@click.option("--project-dir", "-p", default=".", type=click.Path(file_okay=False), help="Directory to initialize.")
@click.option("--project-name", default=None, help="Project name (default: directory name).")
@click.option("--force", is_flag=True, help="Overwrite existing project files.")
@click.option("--dry-run", is_flag=True, help="Show what would be created without writing.")
@click.option("--discover", is_flag=True, help="Discover sources from existing Kafka infrastructure.")
@click.option("--kafka", default=None, help="Kafka bootstrap servers (with --discover).")
@click.option("--schema-registry", default=None, help="Schema Registry URL (with --discover; extracts columns).")
@click.option("--include", multiple=True, help="Include only topics matching a glob (with --discover).")
@click.option("--exclude", multiple=True, help="Exclude topics matching a glob (with --discover).")
@quiet_option
def _init(
    project_dir: str,
    project_name: str | None,
    force: bool,
    dry_run: bool,
    discover: bool,
    executor: str,
    kafka: str | None,
    schema_registry: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    quiet: bool,
    **starter_options: Any,
) -> Result:
    """Initialize a new streamt project."""
    starter = _starters().get(executor)
    if starter is not None and discover:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"The {starter.title} cannot be combined with --discover.",
            "Import the existing topic with `streamt import` into a starter project instead.",
        )
    for name, other in _starters().items():
        given = {o.name: o for o in other.options()}
        if name != executor and any(starter_options.get(key) is not None for key in given):
            flags = "/".join(o.opts[0] for o in given.values())
            raise StreamtError(Codes.E900_USAGE_ERROR, f"{flags} need --executor {name}.")
    root = Path(project_dir)
    name = project_name or _name_of(root.resolve().name)
    if not _NAME.match(name):
        raise StreamtError(
            Codes.E900_USAGE_ERROR, f"Invalid project name '{name}'.", "Use letters, digits, '.', '_' and '-'."
        )
    if discover or kafka or schema_registry or include or exclude:
        from streamt.discovery.init_project import init_discover

        if not discover:
            raise StreamtError(Codes.E900_USAGE_ERROR, "--kafka/--schema-registry/--include/--exclude need --discover.")
        return init_discover(
            root,
            name,
            kafka=kafka,
            registry=schema_registry,
            include=include,
            exclude=exclude,
            dry_run=dry_run,
            force=force,
            quiet=quiet,
        )
    files = {
        "stream_project.yml": _PROJECT.format(name=name),
        "sources/events.yml": _SOURCES,
        "models/events.yml": _MODELS,
    }
    if starter is not None:
        own = {o.name for o in starter.options()}
        files = starter.files(name, **{k: v for k, v in starter_options.items() if k in own})
    files = with_gitignore(root, with_editor_schemas(files))
    existing = sorted(p for p in files if (root / p).exists())
    if existing and not force:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED,
            f"Project files already exist: {', '.join(existing)}",
            "Pass --force to overwrite.",
        )
    if not dry_run:
        for relative, content in files.items():
            write_atomic(root / relative, content)
    verb = "Would create" if dry_run else "Created"
    text = "\n".join([f"{verb} project '{name}' in {root}"] + [f"  {p}" for p in files])
    data = {"project": name, "directory": str(root), "files": list(files), "dry_run": dry_run}
    if starter is not None:
        data.update(starter.data)
    return Result("init", data=data, text=text)


def _command() -> click.Command:
    """``init`` with ``--executor`` (core's scaffold and every starter) and each starter's options after it."""
    starters = _starters()
    command = click.command("init")(_init)
    executor = click.Option(
        ["--executor"], type=click.Choice([SCAFFOLD, *starters]), default=SCAFFOLD, show_default=True
    )
    after = [executor, *(option for starter in starters.values() for option in starter.options())]
    position = next(i for i, p in enumerate(command.params) if p.name == "discover") + 1
    command.params[position:position] = after
    return command


init = _command()


def _name_of(directory: str) -> str:
    """The directory's name as a project name: as it is when valid, else lower-cased with every run of
    other characters as one '-' (``My Project`` -> ``my-project``)."""
    if _NAME.match(directory):
        return directory
    slug = re.sub(r"[^a-z0-9_.-]+", "-", directory.lower()).strip("-._")
    return slug or "my-project"


def write_atomic(path: Path, content: str) -> None:
    """Temp file in the target directory, fsync, rename: never a partial file."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as exc:
        raise StreamtError(
            Codes.E905_OUTPUT_WRITE_FAILED, f"Cannot write {path}: {exc.strerror}", "Check permissions and free space."
        ) from None
