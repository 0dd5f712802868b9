"""Who reads a resource, on either side of a comparison, and which of its columns they use.

A reader is a ``(kind, name)`` pair: a model whose SQL reads it, or an exposure that consumes or
depends on it. Readers of both sides count: a custom application that read a topic at the base
still runs its code after the pull request, whatever its declaration now says. Column use is
read from SQL (``streamt.sql.columns.referenced_columns``) and from an exposure's declared
``consumes.columns``; when it cannot be known (``SELECT *``, unreadable SQL, a sink, an exposure
that declares no columns) the reader is assumed to use every column.
"""

from __future__ import annotations

import re
from typing import Any

from streamt.sdk import Graph, IdentityPlanner, Source, build_graph, referenced_columns

from streamt_impact.chain import ColumnChain
from streamt_impact.planners import Planners

Reader = tuple[str, str]
_STATEFUL = re.compile(r"\b(GROUP\s+BY|JOIN|OVER|DISTINCT|TUMBLE|HOP|SESSION|CUMULATE|MATCH_RECOGNIZE)\b", re.I)
_STAR = re.compile(r"(?:\bSELECT|,)\s*(?:[A-Za-z_][A-Za-z0-9_]*\.)?\*", re.I)


class Consumers:
    """Built from the two loaded projects and their compiled artifacts (for the effective topic specs)."""

    def __init__(self, base: Any, head: Any, base_compiled: Any, head_compiled: Any) -> None:
        self.projects = {"base": base, "head": head}
        self.graphs: dict[str, Graph] = {"base": build_graph(base), "head": build_graph(head)}
        self._topics = {
            side: _topics(compiled) for side, compiled in (("base", base_compiled), ("head", head_compiled))
        }
        self.planners = Planners()
        self._head_artifacts = head_compiled.artifacts
        self._jobs: set[str] | None = None
        self._chain: ColumnChain | None = None

    @property
    def chain(self) -> ColumnChain:
        """Column changes followed through column lineage (built on first use: most changes need none)."""
        if self._chain is None:
            self._chain = ColumnChain(self)
        return self._chain

    def direct(self, name: str) -> list[Reader]:
        """Readers on either side, base first, each once."""
        seen: dict[Reader, None] = {}
        for side in ("base", "head"):
            graph = self.graphs[side]
            if name not in graph.nodes:
                continue
            for child in graph.children(name):
                node = graph.nodes[child]
                if node.type == "model" or (node.type == "exposure" and self._exposure_reads(side, child, name)):
                    seen.setdefault((node.type, child), None)
        return list(seen)

    def remaining(self, name: str) -> list[Reader]:
        """Readers at the base that still exist at the head (whose code may still read ``name``)."""
        graph = self.graphs["head"]
        base = self.graphs["base"]
        if name not in base.nodes:
            return []
        readers = [(base.nodes[c].type, c) for c in base.children(name) if c in graph.nodes]
        return [r for r in readers if r[0] == "model" or self._exposure_reads("base", r[1], name)]

    def reading(self, name: str, column: str) -> list[Reader]:
        wanted = column.lower()
        out = []
        for reader in self.direct(name):
            used = self._used(reader, name)
            if used is None or wanted in used:
                out.append(reader)
        return out

    def stateful(self, name: str) -> list[Reader]:
        """Readers that keep per-key state: stateful SQL, or a custom application (assumed to)."""
        out = []
        for kind, reader in self.direct(name):
            for side in ("base", "head"):
                project = self.projects[side]
                if kind == "model":
                    model = project.model(reader)
                    if model is not None and model.sql and _STATEFUL.search(model.sql):
                        out.append((kind, reader))
                        break
                else:
                    exposure = project.exposure(reader)
                    if exposure is not None and exposure.type == "application":
                        out.append((kind, reader))
                        break
        return out

    def jobs_reading(self, name: str) -> list[Reader]:
        """Direct model readers that compile something running at the head (a kind whose planner tells
        its runtime identity): they read ``name`` by its physical name and must be redeployed."""
        if self._jobs is None:
            running = {}
            for artifact in self._head_artifacts:
                if artifact.kind not in running:
                    running[artifact.kind] = isinstance(self.planners.of(artifact.kind), IdentityPlanner)
            self._jobs = {a.name for a in self._head_artifacts if running[a.kind]}
        return [r for r in self.direct(name) if r[0] == "model" and r[1] in self._jobs]

    def topic_spec(self, side: str, name: str) -> dict[str, Any] | None:
        """The compiled topic spec of declaration ``name`` at ``side``."""
        return self._topics[side].get(name)

    @staticmethod
    def describe(readers: list[Reader]) -> str:
        return ", ".join(f"{kind} {name}" for kind, name in readers)

    def _exposure_reads(self, side: str, exposure_name: str, name: str) -> bool:
        exposure = self.projects[side].exposure(exposure_name)
        return exposure is not None and any(r.name == name for r in (*exposure.consumes, *exposure.depends_on))

    def _used(self, reader: Reader, name: str) -> set[str] | None:
        used: set[str] = set()
        for side in ("base", "head"):
            project = self.projects[side]
            columns = self._model_columns(project, reader[1], name) if reader[0] == "model" else None
            if reader[0] == "exposure":
                columns = self._exposure_columns(project, reader[1], name)
            if columns is None:
                if (project.model(reader[1]) if reader[0] == "model" else project.exposure(reader[1])) is None:
                    continue  # the reader does not exist on this side
                return None
            used |= columns
        return used

    @staticmethod
    def _model_columns(project: Any, reader: str, name: str) -> set[str] | None:
        model = project.model(reader)
        if model is None or not model.rendered_sql or _STAR.search(model.rendered_sql):
            return None
        upstream = project.model(name) or project.source(name)
        if upstream is None:
            return None
        topic = upstream.topic if isinstance(upstream, Source) else upstream.topic_name
        return referenced_columns(model.rendered_sql, (topic,))

    @staticmethod
    def _exposure_columns(project: Any, reader: str, name: str) -> set[str] | None:
        exposure = project.exposure(reader)
        if exposure is None:
            return None
        refs = [r for r in (*exposure.consumes, *exposure.depends_on) if r.name == name]
        declared = {c.name.lower() for r in refs for c in r.columns}
        return declared or None


def _topics(compiled: Any) -> dict[str, dict[str, Any]]:
    return {a.name: dict(a.spec) for a in compiled.artifacts if a.kind == "topic"}
