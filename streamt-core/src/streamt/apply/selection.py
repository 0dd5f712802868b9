"""``apply --target MODEL`` / ``--select SELECTOR``: which artifacts a direct apply touches."""

from __future__ import annotations

from typing import Any

from streamt.artifacts import Artifact
from streamt.compile import CompiledProject
from streamt.errors import Codes, StreamtError, did_you_mean


def select_artifacts(
    project: Any, compiled: CompiledProject, target: str | None, select: str | None
) -> tuple[Artifact, ...] | None:
    """The selected artifacts in plan order, or ``None`` for the whole project."""
    if target is None and select is None:
        return None
    names: set[str] = set()
    if target is not None:
        known = {a.name for a in compiled.artifacts}
        if target not in known:
            raise StreamtError(
                Codes.E900_USAGE_ERROR,
                f"--target {target!r} names no declaration that compiles to artifacts.",
                did_you_mean(target, known),
            )
        names.add(target)
    if select is not None:
        from streamt.dag import build_graph
        from streamt.selection import select as evaluate

        names |= evaluate(project, build_graph(project), select)
    chosen = tuple(a for a in compiled.artifacts if a.name in names)
    if not chosen:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            "The selection matches no deployable artifact.",
            "Check the selector; `streamt list models` shows names and tags.",
        )
    return chosen
