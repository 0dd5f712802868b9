"""Each changed job's workflow, from its provider's own planning rules (``AdvisingPlanner.advise``).

Core does not re-derive what ``plan`` will accept: the planner of the artifact's kind is asked
what it does when the base version runs and the head version replaces it (the upgrade mode it
needs, whether the state restores, whether it is blocked and which setting unblocks it, the exact
commands). A kind whose planner does not advise keeps the generic workflow of ``workflows``; a
planner that cannot advise says so as a blocked advice, never as a passing one.
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Advice, AdvisingPlanner, StreamtError

from streamt_impact.planners import Planners


def advise(
    changed: list[dict[str, str]],
    before: dict[tuple[str, str], Any],
    after: dict[tuple[str, str], Any],
    planners: Planners,
) -> tuple[Advice, ...]:
    """Advice for every artifact in ``changed`` present on both sides whose planner advises."""
    out = []
    for item in changed:
        key = (item["kind"], item["identity"])
        if item["status"] != "changed" or key not in before or key not in after:
            continue
        if after[key].ownership == "external":
            continue  # plan never changes an external resource: there is nothing to advise
        advisor = planners.of(item["kind"])
        if not isinstance(advisor, AdvisingPlanner):
            continue
        try:
            out.append(advisor.advise(before[key], after[key]))
        except StreamtError as exc:  # fail closed: no advice is never a passing one
            out.append(
                Advice(
                    kind=item["kind"],
                    identity=item["identity"],
                    workflow=None,
                    description="the provider could not tell what plan will do",
                    summary=exc.diagnostics[0].message if exc.diagnostics else str(exc),
                    blocked=True,
                    reason="advice_unavailable",
                )
            )
    return tuple(out)
