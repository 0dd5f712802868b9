"""The values of a comparison: one ``FieldChange`` per changed fact, grouped per resource.

Classifications, from least to most severe: ``non-breaking`` (a consumer keeps working),
``operational`` (someone must run a named workflow before or while applying), ``breaking``
(a consumer can stop working) and ``security`` (data or access is exposed more than before: a mask
removed or weakened, a classification changed, access widened, a secret moved into plain config).
``flows`` marks changes that alter what downstream readers receive (records, schema, key or
topic), which is what the downstream closure follows; metadata-only
changes (descriptions, owners, tags, tests) stay with their resource.
"""

from __future__ import annotations

from typing import Any

import attrs

NON_BREAKING = "non-breaking"
OPERATIONAL = "operational"
BREAKING = "breaking"
SECURITY = "security"
LEVELS = (NON_BREAKING, OPERATIONAL, BREAKING, SECURITY)


def rank(classification: str) -> int:
    return LEVELS.index(classification)


def highest(classifications: list[str] | tuple[str, ...]) -> str | None:
    return max(classifications, key=rank) if classifications else None


@attrs.frozen(kw_only=True)
class FieldChange:
    """One changed fact. ``columns`` scopes a change to consumers that read one of those columns;
    ``breaks`` names the direct readers a breaking change breaks (``None``: every one it reaches)."""

    field: str
    before: Any
    after: Any
    classification: str
    reason: str
    workflow: str | None = None
    flows: bool = False
    columns: tuple[str, ...] = ()
    breaks: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "after": self.after,
            "before": self.before,
            "classification": self.classification,
            "field": self.field,
            "reason": self.reason,
            "workflow": self.workflow,
        }


@attrs.frozen(kw_only=True)
class ResourceChange:
    kind: str  # source | model | test | exposure | lifecycle
    name: str
    status: str  # added | removed | changed
    fields: tuple[FieldChange, ...]
    artifacts: tuple[dict[str, str], ...] = ()
    owner: str | None = None
    advice: tuple[Any, ...] = ()  # ``streamt.plan.model.Advice`` of each changed job, from its planner

    @property
    def classification(self) -> str:
        return highest([f.classification for f in self.fields]) or NON_BREAKING

    def to_json(self) -> dict[str, Any]:
        return {
            "advice": [a.to_json() for a in self.advice],
            "artifacts": list(self.artifacts),
            "classification": self.classification,
            "fields": [f.to_json() for f in self.fields],
            "kind": self.kind,
            "name": self.name,
            "owner": self.owner,
            "status": self.status,
        }
