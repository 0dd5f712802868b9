"""The lineage graph of a project: sources, models and exposures, with cycle detection.

Edges (dsl.md §12): source -> model and model -> model (dependency -> dependant); model/source ->
exposure for ``consumes``/``depends_on``; exposure -> source/model for ``produces``. Only edges between
declared nodes are kept; dangling references are validation errors, not graph edges.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from streamt.project.model import Project


@attrs.frozen
class Node:
    """One node of the lineage graph: its ``name``, ``type`` and, for a model, how it is ``materialized``."""

    name: str
    type: str  # source | model | exposure
    materialized: str | None = None


@attrs.frozen
class Graph:
    """A project's lineage graph: ``nodes`` by name, and ``edges`` from dependency to dependant, each once."""

    nodes: dict[str, Node]
    edges: tuple[tuple[str, str], ...]
    _children: dict[str, list[str]] = attrs.field(init=False, eq=False, repr=False)
    _parents: dict[str, list[str]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        children: dict[str, list[str]] = {n: [] for n in self.nodes}
        parents: dict[str, list[str]] = {n: [] for n in self.nodes}
        for a, b in self.edges:
            children[a].append(b)
            parents[b].append(a)
        object.__setattr__(self, "_children", children)
        object.__setattr__(self, "_parents", parents)

    def parents(self, name: str) -> list[str]:
        """The nodes ``name`` reads from directly (its dependencies)."""
        return list(self._parents.get(name, ()))

    def children(self, name: str) -> list[str]:
        """The nodes that read ``name`` directly (its dependants)."""
        return list(self._children.get(name, ()))

    def upstream_of(self, name: str) -> list[str]:
        """Every node ``name`` depends on, directly or through others."""
        return _closure(name, self._parents)

    def downstream_of(self, name: str) -> list[str]:
        """Every node that depends on ``name``, directly or through others."""
        return _closure(name, self._children)

    def cycles(self) -> list[list[str]]:
        """Each cycle once, as a closed path ``[a, b, a]``, found in declaration order."""
        return find_cycles(list(self.nodes), self._children)


def build_graph(project: Project) -> Graph:
    """The lineage graph of ``project``: sources, models and exposures, and the edges between declared ones."""
    nodes: dict[str, Node] = {}
    for source in project.sources:
        nodes.setdefault(source.name, Node(source.name, "source"))
    for model in project.models:
        nodes.setdefault(model.name, Node(model.name, "model", model.materialized))
    for exposure in project.exposures:
        nodes.setdefault(exposure.name, Node(exposure.name, "exposure"))
    edges: list[tuple[str, str]] = []
    for model in project.models:
        for dep in model.dependencies:
            edges.append((dep.name, model.name))
    for exposure in project.exposures:
        for ref in (*exposure.consumes, *exposure.depends_on):
            edges.append((ref.name, exposure.name))
        for ref in exposure.produces:
            edges.append((exposure.name, ref.name))
    kept = [(a, b) for a, b in edges if a in nodes and b in nodes]
    return Graph(nodes, tuple(dict.fromkeys(kept)))


def _closure(start: str, adjacency: dict[str, list[str]]) -> list[str]:
    seen: dict[str, None] = {}
    stack = list(reversed(adjacency.get(start, [])))
    while stack:
        node = stack.pop()
        if node in seen or node == start:
            continue
        seen[node] = None
        stack.extend(reversed(adjacency.get(node, [])))
    return list(seen)


def find_cycles(order: Iterable[str], adjacency: dict[str, list[str]]) -> list[list[str]]:
    """Iterative DFS (no recursion limit on deep chains); one representative path per cycle."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(adjacency, white)
    cycles: list[list[str]] = []
    seen_sets: set[frozenset[str]] = set()
    for root in order:
        if colour.get(root) != white:
            continue
        path: list[str] = [root]
        iterators = [iter(adjacency.get(root, []))]
        colour[root] = grey
        while iterators:
            child = next(iterators[-1], None)
            if child is None:
                colour[path.pop()] = black
                iterators.pop()
                continue
            state = colour.get(child, black)
            if state == white:
                colour[child] = grey
                path.append(child)
                iterators.append(iter(adjacency.get(child, [])))
            elif state == grey:
                loop = [*path[path.index(child) :], child]
                key = frozenset(loop)
                if key not in seen_sets:
                    seen_sets.add(key)
                    cycles.append(loop)
    return cycles
