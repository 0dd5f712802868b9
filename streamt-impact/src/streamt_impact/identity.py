"""Identity changes: a job, runner or connector compiled under another runtime identity.

Detected by the compiled artifacts, not the declaration name: when a declaration's job artifact
has another identity at the head (a renamed model, a changed job or connector name), apply creates
a **new** resource beside the old one. The new one has a new consumer group, so it starts where a
new group starts (Flink's ``scan.startup.mode``, the runner's ``initial_offset``, Connect's default
``earliest``): a full reprocessing when that is the earliest offset. The old one is not removed by
a changed declaration and keeps running, writing the same output: a duplicate writer until it is
removed by a reviewed removal. What runs (name, group, start position, output) is the provider's
answer (its planner's ``runtime_identity``), read from the spec it compiled.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import IdentityPlanner

from streamt_impact.changes import BREAKING, FieldChange
from streamt_impact.planners import Planners


def identity_changes(
    before: dict[tuple[str, str], Any], after: dict[tuple[str, str], Any], planners: Planners
) -> list[FieldChange]:
    """One breaking change per artifact kind whose single artifact runs under another identity at the head.

    Only kinds whose planner describes what runs (``IdentityPlanner.runtime_identity``) count: a
    topic or schema has no consumer group, and its rename is reported on its own.
    """
    fields = []
    for kind in sorted({k for k, _ in before} & {k for k, _ in after}):
        old = [a for (k, _), a in sorted(before.items()) if k == kind]
        new = [a for (k, _), a in sorted(after.items()) if k == kind]
        if len(old) != 1 or len(new) != 1 or old[0].identity == new[0].identity:
            continue
        planner = planners.of(kind)
        if not isinstance(planner, IdentityPlanner):
            continue
        was, now = planner.runtime_identity(old[0]), planner.runtime_identity(new[0])
        if was.get("name") == now.get("name"):
            continue
        what = kind.replace("_", " ")
        writes = f", writing {was['writes']}," if was.get("writes") else ""
        fields.append(
            FieldChange(
                field=f"identity.{kind}",
                before=was.get("name"),
                after=now.get("name"),
                classification=BREAKING,
                reason=f"a new {what} {now.get('name')} with a new consumer group {now.get('group')} starting at "
                f"{now.get('start')}; the old {what} {was.get('name')}{writes} keeps running until removed: "
                "a duplicate writer",
                workflow="identity_change",
                flows=True,
            )
        )
    return fields
