"""The impact report: both sides, the classified changes, the impacted readers, and the JSON shape.

``FORMAT_VERSION`` versions the JSON document (``docs/commands/impact.md`` describes it). Adding a
key is compatible; renaming or removing one, or changing a meaning, raises the version.
"""

from __future__ import annotations

from typing import Any

import attrs

from streamt_impact.changes import (
    BREAKING,
    LEVELS,
    NON_BREAKING,
    OPERATIONAL,
    SECURITY,
    ResourceChange,
    highest,
    rank,
)
from streamt_impact.compare import compare
from streamt_impact.consumers import Consumers
from streamt_impact.downstream import Impacted, closure
from streamt_impact.snapshot import Side, Snapshot
from streamt_impact.workflows import WORKFLOWS

FORMAT_VERSION = 1


@attrs.frozen(kw_only=True)
class Node:
    """One resource on the affected lineage, classified once: every rendering reads these values.

    ``change`` is the classification of the resource's own change (``None`` when it did not change),
    ``effect`` what the changes upstream do to it as a reader (``None`` when nothing reaches it).
    """

    kind: str
    name: str
    change: str | None
    effect: str | None

    @property
    def label(self) -> str:
        parts = [f"changed: {self.change}"] if self.change else []
        return ", ".join([*parts, *([f"impact: {self.effect}"] if self.effect else [])])


@attrs.frozen(kw_only=True)
class Report:
    base: Side
    head: Side
    environment: str
    changes: tuple[ResourceChange, ...]
    impacted: tuple[Impacted, ...]

    @property
    def highest(self) -> str | None:
        return highest([c.classification for c in self.changes])

    def workflows(self) -> list[tuple[str, str]]:
        """``(id, description)`` of every workflow named, sorted; a planner's advice describes its own."""
        described = {a.workflow: a.description for c in self.changes for a in c.advice if a.workflow}
        named = {f.workflow for c in self.changes for f in c.fields if f.workflow}
        return [(w, described.get(w) or WORKFLOWS.get(w, w)) for w in sorted(named)]

    def advice(self) -> list[Any]:
        return [a for c in self.changes for a in c.advice]

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(LEVELS, 0)
        for change in self.changes:
            counts[change.classification] += 1
        return counts

    def impacted_by_type(self) -> dict[str, int]:
        """Impacted readers counted by what they are: ``model`` or the exposure's type (application, dashboard...)."""
        counts: dict[str, int] = {}
        for item in self.impacted:
            kind = (item.type or "exposure") if item.kind == "exposure" else item.kind
            counts[kind] = counts.get(kind, 0) + 1
        return dict(sorted(counts.items()))

    def nodes(self) -> list[Node]:
        """The changed lineage resources and every reader reached, sorted by name."""
        changed = {c.name: c for c in self.changes if c.kind in ("source", "model", "exposure")}
        reached = {i.name: i for i in self.impacted}
        out = []
        for name in sorted(changed.keys() | reached.keys()):
            change, item = changed.get(name), reached.get(name)
            kind = change.kind if change is not None else item.kind if item is not None else "model"
            out.append(
                Node(
                    kind=kind,
                    name=name,
                    change=change.classification if change is not None else None,
                    effect=item.effect if item is not None else None,
                )
            )
        return out

    def meets(self, threshold: str | None) -> bool:
        """Levels are ordered non-breaking < operational < breaking < security; a threshold is met by a
        change at that level or worse (``security``: a security change only); ``any``: any change."""
        if threshold is None or not self.changes:
            return False
        if threshold == "any":
            return True
        return rank(self.highest or NON_BREAKING) >= rank(threshold)

    def to_json(self) -> dict[str, Any]:
        counts = self.counts()
        return {
            "base": self.base.to_json(),
            "changes": [c.to_json() for c in self.changes],
            "environment": self.environment,
            "format_version": FORMAT_VERSION,
            "head": self.head.to_json(),
            "impacted": [i.to_json() for i in self.impacted],
            "summary": {
                "breaking": counts[BREAKING],
                "highest": self.highest,
                "impacted": len(self.impacted),
                "impacted_breaking": sum(1 for i in self.impacted if i.breaking),
                "impacted_by_type": self.impacted_by_type(),
                "impacted_exposures": sum(1 for i in self.impacted if i.kind == "exposure"),
                "non_breaking": counts[NON_BREAKING],
                "operational": counts[OPERATIONAL],
                "resources_changed": len(self.changes),
                "security": counts[SECURITY],
            },
            "workflows": [{"id": w, "description": d} for w, d in self.workflows()],
        }


def build(base: Snapshot, head: Snapshot, selected: set[str] | None = None) -> Report:
    """Compare ``base`` with ``head``; ``selected`` limits the changes (and so the closure) to those names."""
    consumers = Consumers(base.project, head.project, base.compiled, head.compiled)
    changes = compare(base, head, consumers)
    if selected is not None:
        changes = [c for c in changes if c.name in selected]
    return Report(
        base=base.side,
        head=head.side,
        environment=head.project.env,
        changes=tuple(changes),
        impacted=tuple(closure(changes, consumers)),
    )
