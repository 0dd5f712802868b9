"""The downstream closure of the changes, over the lineage of both sides, with the why for each reader.

Only changes that alter what readers receive (``FieldChange.flows``) travel. A change scoped to
columns reaches the readers that use one of those columns, and through column lineage the readers
of every column derived from it (``chain``); any other such change reaches
everything downstream, models and custom applications (exposures) alike, and says so even when
the topic a reader reads is unchanged in configuration and schema (a filter predicate upstream
changed which records arrive). Each reason carries the path it travelled.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import attrs

from streamt_impact.changes import BREAKING, SECURITY, ResourceChange
from streamt_impact.consumers import Consumers


@attrs.frozen(kw_only=True)
class Reason:
    resource: str
    kind: str
    field: str
    breaking: bool
    via: tuple[str, ...]
    why: str
    security: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "breaking": self.breaking,
            "field": self.field,
            "security": self.security,
            "kind": self.kind,
            "resource": self.resource,
            "via": list(self.via),
            "why": self.why,
        }


@attrs.frozen(kw_only=True)
class Impacted:
    kind: str  # model | exposure | source
    name: str
    owner: str | None
    type: str | None  # exposure type, or the model's materialization
    reasons: tuple[Reason, ...]

    @property
    def breaking(self) -> bool:
        return any(r.breaking for r in self.reasons)

    @property
    def effect(self) -> str:
        """``breaking``, ``security`` (it now receives data less protected than before) or ``affected``."""
        if self.breaking:
            return "breaking"
        return "security" if any(r.security for r in self.reasons) else "affected"

    def to_json(self) -> dict[str, Any]:
        return {
            "breaking": self.breaking,
            "effect": self.effect,
            "kind": self.kind,
            "name": self.name,
            "owner": self.owner,
            "reasons": [r.to_json() for r in self.reasons],
            "type": self.type,
        }


def closure(changes: list[ResourceChange], consumers: Consumers) -> list[Impacted]:
    children = _union_children(consumers)
    found: dict[str, list[Reason]] = {}
    for change in changes:
        flowing = [f for f in change.fields if f.flows]
        if not flowing or change.kind not in ("source", "model"):
            continue
        paths = _paths(change.name, children)
        direct = set(children.get(change.name, ()))
        for field in flowing:
            if field.columns:
                _chained(found, change, field, consumers)
                continue
            for target in paths:
                found.setdefault(target, []).append(
                    Reason(
                        resource=change.name,
                        kind=change.kind,
                        field=field.field,
                        # Only a direct reader breaks: a later one reads an intermediate model's output,
                        # whose own change (if any) is reported and classified on its own.
                        breaking=field.classification == BREAKING
                        and target in direct
                        and (field.breaks is None or target in field.breaks),
                        security=field.classification == SECURITY,
                        via=paths[target],
                        why=f"{change.kind} {change.name} {field.field}: {field.reason}",
                    )
                )
    return [_impacted(name, reasons, consumers) for name, reasons in sorted(found.items())]


def _chained(found: dict[str, list[Reason]], change: ResourceChange, field: Any, consumers: Consumers) -> None:
    """A column-scoped change reaches the readers of the column, and of the columns derived from it."""
    typed = field.before is not None and field.after is not None and field.field.startswith(("columns.", "contract."))
    what = field.reason.split(";")[0]
    for column in field.columns:
        for target, via, read in consumers.chain.reach(change.name, column, typed):
            derived = "" if len(via) == 1 else f" (derived from {change.name}.{column})"
            found.setdefault(target, []).append(
                Reason(
                    resource=change.name,
                    kind=change.kind,
                    field=field.field,
                    # The changed column itself reaches it, however far down: each hop reads the same values.
                    breaking=field.classification == BREAKING,
                    security=field.classification == SECURITY,
                    via=via,
                    why=f"{change.kind} {change.name} {field.field}: uses column {read}{derived}: {what}",
                )
            )


def _union_children(consumers: Consumers) -> dict[str, list[str]]:
    children: dict[str, dict[str, None]] = {}
    for side in ("base", "head"):
        graph = consumers.graphs[side]
        for parent, child in graph.edges:
            children.setdefault(parent, {}).setdefault(child, None)
    return {parent: list(kids) for parent, kids in children.items()}


def _paths(start: str, children: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """Shortest path (start excluded, target included) to every node downstream of ``start``."""
    paths: dict[str, tuple[str, ...]] = {}
    queue: deque[tuple[str, tuple[str, ...]]] = deque([(start, ())])
    while queue:
        node, path = queue.popleft()
        for child in children.get(node, ()):
            if child == start or child in paths:
                continue
            paths[child] = (*path, child)
            queue.append((child, paths[child]))
    return paths


def _impacted(name: str, reasons: list[Reason], consumers: Consumers) -> Impacted:
    kind, owner, kind_of = "model", None, None
    for side in ("head", "base"):
        graph = consumers.graphs[side]
        if name in graph.nodes:
            project = consumers.projects[side]
            node = graph.nodes[name]
            kind = node.type
            declaration = {"model": project.model, "source": project.source, "exposure": project.exposure}[kind](name)
            owner = getattr(declaration, "owner", None)
            kind_of = declaration.type if kind == "exposure" else node.materialized
            break
    ordered = tuple(sorted(reasons, key=lambda r: (r.resource, r.field, r.why)))
    return Impacted(kind=kind, name=name, owner=owner, type=kind_of, reasons=ordered)
