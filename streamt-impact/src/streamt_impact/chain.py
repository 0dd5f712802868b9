"""A column change followed through column lineage, to every reader that uses the column downstream.

From a changed column ``R.c``, each reader that uses it is reached (``Consumers.reading``: a model's
SQL, an exposure's ``consumes.columns``, or every column when that cannot be known); for a model,
the output columns derived from ``R.c`` (``streamt.sql.lineage``: a column whose ``from`` names it)
are followed in turn, so a type narrowed at a source reaches the custom application that reads it
two models down. A type change travels only through columns that inherit their type
(``type_source: upstream``: a copy or a same-type aggregate); a declared or computed type stops
it. A removed or renamed column travels through every column derived from it. Lineage is the
head's: it is what runs after the change. Each reader comes with its path.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from streamt.sdk import column_lineage

if TYPE_CHECKING:
    from streamt_impact.consumers import Consumers


class ColumnChain:
    def __init__(self, consumers: Consumers) -> None:
        self._consumers = consumers
        self._known: dict[str, dict[str, str | None]] = {}
        self._lineage: dict[str, list[dict[str, Any]]] = {}

    def reach(self, resource: str, column: str, typed: bool) -> list[tuple[str, tuple[str, ...], str]]:
        """``(reader, path from resource (excluded) to it, the column it reads)``, nearest first.

        ``typed``: the change is a type change (it travels only where the type is inherited).
        """
        out: list[tuple[str, tuple[str, ...], str]] = []
        seen: set[str] = {resource}
        queue: deque[tuple[str, str, tuple[str, ...]]] = deque([(resource, column, ())])
        while queue:
            node, name, path = queue.popleft()
            for kind, reader in self._consumers.reading(node, name):
                if reader in seen:
                    continue
                seen.add(reader)
                via = (*path, reader)
                out.append((reader, via, f"{node}.{name}"))
                if kind == "model":
                    queue.extend((reader, derived, via) for derived in self._derived(reader, node, name, typed))
        return out

    def _derived(self, model: str, node: str, column: str, typed: bool) -> list[str]:
        origin = f"{node}.{column}"
        return [
            c["name"]
            for c in self._columns(model)
            if origin in c["from"] and (not typed or c["type_source"] == "upstream")
        ]

    def _columns(self, model: str) -> list[dict[str, Any]]:
        if model not in self._lineage:
            project, graph = self._consumers.projects["head"], self._consumers.graphs["head"]
            if project.model(model) is None or model not in graph.nodes:
                self._lineage[model] = []
            else:
                self._lineage[model] = column_lineage(project, model, graph, self._known)
        return self._lineage[model]
