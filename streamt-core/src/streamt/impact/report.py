"""The impact report: both sides, the classified changes, the impacted readers, and the JSON shape.

``FORMAT_VERSION`` versions the JSON document (``docs/commands/impact.md`` describes it). Adding a
key is compatible; renaming or removing one, or changing a meaning, raises the version.
"""

from __future__ import annotations

from typing import Any

import attrs

from streamt.impact.changes import BREAKING, LEVELS, NON_BREAKING, OPERATIONAL, ResourceChange, highest, rank
from streamt.impact.compare import compare
from streamt.impact.consumers import Consumers
from streamt.impact.downstream import Impacted, closure
from streamt.impact.snapshot import Side, Snapshot
from streamt.impact.workflows import WORKFLOWS

FORMAT_VERSION = 1


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

    def workflows(self) -> list[str]:
        return sorted({f.workflow for c in self.changes for f in c.fields if f.workflow})

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(LEVELS, 0)
        for change in self.changes:
            counts[change.classification] += 1
        return counts

    def meets(self, threshold: str | None) -> bool:
        """``breaking``: a breaking change; ``operational``: operational or worse; ``any``: any change."""
        if threshold is None or not self.changes:
            return False
        if threshold == "any":
            return True
        wanted = BREAKING if threshold == "breaking" else OPERATIONAL
        return rank(self.highest or NON_BREAKING) >= rank(wanted)

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
                "impacted_exposures": sum(1 for i in self.impacted if i.kind == "exposure"),
                "non_breaking": counts[NON_BREAKING],
                "operational": counts[OPERATIONAL],
                "resources_changed": len(self.changes),
            },
            "workflows": [{"id": w, "description": WORKFLOWS[w]} for w in self.workflows()],
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
