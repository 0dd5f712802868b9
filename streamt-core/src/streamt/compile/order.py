"""Deterministic orders: declarations for the compile walk, artifacts for plans.

Nothing here depends on dict or set iteration order, file discovery order or
``PYTHONHASHSEED``: every tie is broken by names. Kinds are ordered by the rank their plugin
registers (``streamt.artifact_kinds``): storage before what reads or writes it, removals last.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from typing import Any

from streamt.artifact_kinds import ArtifactKinds, artifact_kinds
from streamt.artifacts import Artifact
from streamt.errors import Codes, StreamtError
from streamt.plugins import get_plugins


def kind_rank(kind: str) -> tuple[int, str]:
    """The installed plugins' order of ``kind`` (registered rank, then name): plan, apply and diff sections."""
    return artifact_kinds(get_plugins()).rank(kind)


def topological(nodes: Iterable[Any], edges: Mapping[Any, Iterable[Any]], tie: Any) -> list[Any]:
    """Kahn's algorithm; ``edges[n]`` are the nodes ``n`` needs first.

    Among ready nodes the smallest ``tie(node)`` goes first. Edges to unknown
    nodes are ignored (an external dependency that compiles to nothing).
    Raises ``ValueError`` with the remaining nodes on a cycle.
    """
    nodes = list(nodes)
    known = set(nodes)
    needs: dict[Any, set[Any]] = {n: {d for d in edges.get(n, ()) if d in known and d != n} for n in nodes}
    users: dict[Any, list[Any]] = {n: [] for n in nodes}
    for node, deps in needs.items():
        for dep in deps:
            users[dep].append(node)
    ready = [(tie(n), i, n) for i, n in enumerate(nodes) if not needs[n]]
    heapq.heapify(ready)
    index = {n: i for i, n in enumerate(nodes)}
    ordered: list[Any] = []
    while ready:
        _, _, node = heapq.heappop(ready)
        ordered.append(node)
        for user in users[node]:
            needs[user].discard(node)
            if not needs[user]:
                heapq.heappush(ready, (tie(user), index[user], user))
    if len(ordered) != len(nodes):
        raise ValueError(sorted(str(n) for n in nodes if needs[n]))
    return ordered


def declaration_order(project: Any) -> list[Any]:
    """Sources by name, models upstream first, then tests by name."""
    models = {m.name: m for m in project.models}
    edges = {name: [r.name for r in m.dependencies if r.kind == "model"] for name, m in models.items()}
    try:
        names = topological(sorted(models), edges, tie=lambda n: n)
    except ValueError as exc:
        raise StreamtError(
            Codes.E104_CYCLE_DETECTED,
            f"Circular dependency among models: {', '.join(exc.args[0])}",
            "Run `streamt validate` for the cycle path and break it.",
        ) from None
    sources = sorted(project.sources, key=lambda s: s.name)
    tests = sorted(project.tests, key=lambda t: t.name)
    return [*sources, *(models[n] for n in names), *tests]


def artifact_order(artifacts: Iterable[Artifact], kinds: ArtifactKinds) -> list[Artifact]:
    """Dependencies first; otherwise by the rank ``kinds`` registers, then identity."""
    items = list(artifacts)
    by_key = {a.sort_key: a for a in items}
    edges = {a.sort_key: list(a.depends_on) for a in items}
    rank = kinds.rank
    try:
        keys = topological(sorted(by_key, key=lambda k: (rank(k[0]), k[1])), edges, tie=lambda k: (rank(k[0]), k[1]))
    except ValueError as exc:
        raise StreamtError(
            Codes.E104_CYCLE_DETECTED,
            f"Compiled artifacts depend on each other in a cycle: {', '.join(exc.args[0])}",
            "A provider plugin declared circular depends_on; report it to its maintainers.",
        ) from None
    return [by_key[k] for k in keys]
