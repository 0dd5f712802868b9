"""``--select`` expressions: ``tag:x``, ``name``, ``+name`` (with upstream), ``name+`` (with downstream).

Several selectors separated by spaces or commas are a union.
"""

from __future__ import annotations

from streamt.dag import Graph
from streamt.errors import Codes, StreamtError, did_you_mean
from streamt.project.model import Project


def select(project: Project, graph: Graph, expression: str) -> set[str]:
    """The names a ``--select`` expression picks; ``E900`` for a selector that matches nothing."""
    chosen: set[str] = set()
    for token in expression.replace(",", " ").split():
        chosen |= _one(project, graph, token)
    return chosen


def _one(project: Project, graph: Graph, token: str) -> set[str]:
    if token.startswith("tag:"):
        tag = token[4:]
        # Exposures and tests carry no tags.
        return {s.name for s in project.sources if tag in s.tags} | {m.name for m in project.models if tag in m.tags}
    up, down = token.startswith("+"), token.endswith("+")
    name = token.strip("+")
    known = {*graph.nodes, *(t.name for t in project.tests)}
    if name not in known:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"Selector '{token}' matches nothing: no resource named '{name}'",
            did_you_mean(name, known) or "Use tag:<tag>, <name>, +<name> or <name>+.",
        )
    result = {name}
    if up:
        result |= set(graph.upstream_of(name))
    if down:
        result |= set(graph.downstream_of(name))
    return result
