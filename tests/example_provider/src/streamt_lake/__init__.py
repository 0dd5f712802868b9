"""``materialized: lake_table``: each such model becomes a JSON table descriptor in a lake directory.

The lake directory is ``$LAKE_DIR`` (default ``./lake``). The descriptor of a model is
``<lake>/<table>.json``; streamt creates and updates it through plan/apply like any resource.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from streamt.sdk import (
    ABSENT,
    CREATE,
    FAILED,
    NOOP,
    OK,
    PRESENT,
    UNKNOWN,
    UPDATE,
    Action,
    Artifact,
    ArtifactKind,
    Materialization,
    Model,
    Observation,
    Outcome,
    OwnershipRecord,
    Project,
    Runtime,
    atomic_write,
    canonical_json,
    hookimpl,
)

KIND = "lake_table"
_TABLE = re.compile(r"^[a-z][a-z0-9_]*$")


@hookimpl
def streamt_materializations() -> list[Materialization]:
    return [Materialization(name=KIND, description="Table descriptor in a lake directory", extra="streamt-lake")]


@hookimpl
def streamt_artifact_kinds() -> list[ArtifactKind]:
    # Where core writes the descriptors (generated/lake/, manifest "lake_tables"), their place in
    # plans (after jobs, connectors and rules), and which declarations core sends to streamt_compile.
    return [
        ArtifactKind(
            name=KIND,
            directory="lake",
            manifest_key="lake_tables",
            rank=65,
            title="Lake Tables",
            materializations=(KIND,),
        )
    ]


@hookimpl
def streamt_compile(project: Project, declaration: Model) -> list[Artifact]:
    # Core sends only the models materialized lake_table (the registration above).
    spec = {
        "table": declaration.name,
        "columns": [{"name": c.name, "type": c.type} for c in declaration.columns],
        "reads": sorted(project.topic_of(ref) or ref.name for ref in declaration.dependencies),
    }
    return [Artifact(KIND, declaration.name, declaration.name, spec, provider="streamt-lake")]


@hookimpl
def streamt_observers(runtime: Runtime) -> list[LakeObserver]:
    return [LakeObserver(lake_dir())]


@hookimpl
def streamt_planners() -> list[LakePlanner]:
    return [LakePlanner()]


@hookimpl
def streamt_deployers(runtime: Runtime) -> list[LakeDeployer]:
    return [LakeDeployer(lake_dir())]


def lake_dir() -> Path:
    return Path(os.environ.get("LAKE_DIR", "lake"))


class LakeObserver:
    """Reads every descriptor asked for; a file that cannot be read is unavailable, never absent."""

    kinds = (KIND,)

    def __init__(self, root: Path) -> None:
        self.root = root

    def observe(self, artifacts: Sequence[Artifact]) -> Mapping[str, Observation]:
        seen: dict[str, Observation] = {}
        for artifact in artifacts:
            path = self.root / f"{artifact.identity}.json"
            try:
                seen[artifact.identity] = Observation(PRESENT, json.loads(path.read_bytes()))
            except FileNotFoundError:
                seen[artifact.identity] = Observation(ABSENT)
            except (OSError, ValueError):
                seen[artifact.identity] = Observation("unavailable")
        return seen


class LakePlanner:
    """Absent: create. Present: no-op when the descriptor is the compiled one, else update."""

    kinds = (KIND,)

    def plan(self, artifact: Artifact, observation: Observation, record: OwnershipRecord | None) -> list[Action]:
        if observation.status == ABSENT:
            return [Action.for_artifact(CREATE, artifact, f"{len(artifact.spec['columns'])} columns", observation)]
        if observation.spec == artifact.spec:
            return [Action.for_artifact(NOOP, artifact, "no changes", observation)]
        return [Action.for_artifact(UPDATE, artifact, "descriptor changes", observation)]


class LakeDeployer:
    """Writes descriptors atomically: done when written, failed when refused before writing."""

    kinds = (KIND,)

    def __init__(self, root: Path) -> None:
        self.root = root

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        outcomes: dict[str, Outcome] = {}
        for _action, artifact in pairs:
            if not _TABLE.match(artifact.spec["table"]):
                outcomes[artifact.identity] = Outcome(FAILED, "InvalidTableName")  # nothing was written
                continue
            try:
                self.root.mkdir(parents=True, exist_ok=True)
                atomic_write(self.root / f"{artifact.identity}.json", canonical_json(artifact.spec))
                outcomes[artifact.identity] = OK
            except OSError as exc:  # the rename may or may not have happened
                outcomes[artifact.identity] = Outcome(UNKNOWN, type(exc).__name__)
        return outcomes

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        if action.action != CREATE:
            return False
        (self.root / f"{artifact.identity}.json").unlink(missing_ok=True)
        return not (self.root / f"{artifact.identity}.json").exists()
