"""A deterministic layered layout of the lineage graph, computed once at generate time.

Layer = longest path from a root (so every edge points right); inside a layer nodes are ordered by
the mean position of their parents (one barycentre pass), ties by name. A layer taller than the
graph is wide wraps into several sub-columns, so a project of thousands of models whose layers hold
hundreds of nodes each still has a roughly screen-shaped overview. The browser only draws what it
is given, so the page needs no layout code and the same project always gives the same picture.
"""

from __future__ import annotations

from collections.abc import Sequence

COLUMN_GAP = 220  # one sub-column: a 180-pixel box and its margin
LAYER_GAP = 40  # extra space between layers, so wrapped sub-columns of one layer stay together
ROW_GAP = 52
ASPECT = 1.6  # the width:height the wrapping aims for


def layered(names: Sequence[str], edges: Sequence[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """``name -> (x, y)`` for every node; nodes on a cycle (an invalid project) go after their layer."""
    parents: dict[str, list[str]] = {n: [] for n in names}
    children: dict[str, list[str]] = {n: [] for n in names}
    for a, b in edges:
        parents[b].append(a)
        children[a].append(b)
    layer = _layers(names, parents, children)
    columns: dict[int, list[str]] = {}
    for name in names:
        columns.setdefault(layer[name], []).append(name)
    row: dict[str, int] = {}
    for index in sorted(columns):
        members = columns[index]

        def barycentre(name: str) -> float:
            placed = [row[p] for p in parents[name] if p in row]
            return sum(placed) / len(placed) if placed else -1.0

        members.sort(key=lambda n: (barycentre(n), n))
        for position, name in enumerate(members):
            row[name] = position
    sizes = [len(columns[i]) for i in sorted(columns)]
    rows = _rows_per_column(sizes)
    x_of_layer: dict[int, int] = {}
    x = 0
    for index in sorted(columns):
        x_of_layer[index] = x
        x += -(-len(columns[index]) // rows) * COLUMN_GAP + LAYER_GAP
    return {n: (x_of_layer[layer[n]] + (row[n] // rows) * COLUMN_GAP, (row[n] % rows) * ROW_GAP) for n in names}


def _rows_per_column(sizes: list[int]) -> int:
    """The fewest rows per sub-column that keep the picture no wider than ``ASPECT`` times its height."""
    tallest = max(sizes, default=1)
    for rows in range(1, tallest):
        width = sum(-(-s // rows) for s in sizes) * COLUMN_GAP + len(sizes) * LAYER_GAP
        if width <= ASPECT * rows * ROW_GAP:
            return rows
    return tallest


def _layers(names: Sequence[str], parents: dict[str, list[str]], children: dict[str, list[str]]) -> dict[str, int]:
    waiting = {n: len(parents[n]) for n in names}
    layer = dict.fromkeys(names, 0)
    ready = [n for n in names if waiting[n] == 0]
    done: set[str] = set()
    while ready:
        name = ready.pop()
        done.add(name)
        for child in children[name]:
            layer[child] = max(layer[child], layer[name] + 1)
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    for name in names:  # left over only on a cycle: after the deepest parent already placed
        if name not in done:
            layer[name] = 1 + max((layer[p] for p in parents[name] if p in done), default=-1)
            done.add(name)
    return layer
