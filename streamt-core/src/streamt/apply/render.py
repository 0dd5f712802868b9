"""Apply's text and JSON renderings (CLI reference, ``apply`` Output)."""

from __future__ import annotations

from typing import Any

from streamt.apply.executor import ApplyReport
from streamt.compile.order import kind_rank
from streamt.plan.model import Action, Plan
from streamt.plan.render import section_title

_SYMBOL = {
    "created": "+",
    "updated": "~",
    "deleted": "-",
    "unchanged": "=",
    "would create": "+",
    "would update": "~",
}
_WIDTH = 32


def _line(action: Action, result: str) -> str:
    dots = "." * max(3, _WIDTH - len(action.identity))
    return f"  {_SYMBOL.get(result, '=')} {action.identity} {dots} {result}"


def _sections(results: tuple[tuple[Action, str], ...]) -> list[str]:
    lines: list[str] = []
    for kind in sorted({a.kind for a, _ in results}, key=kind_rank):
        lines += ["", f"{section_title(kind)}:"]
        lines += [_line(a, r) for a, r in results if a.kind == kind]
    return lines


def summary(results: tuple[tuple[Action, str], ...]) -> dict[str, int]:
    tally = {"created": 0, "updated": 0, "deleted": 0, "unchanged": 0}
    for _, result in results:
        tally[result] = tally.get(result, 0) + 1
    return tally


def apply_text(report: ApplyReport) -> str:
    counts = summary(report.results)
    lines = ["Applying changes...", *_sections(report.results), ""]
    # Deletions are counted when there are any: an apply without a removal keeps the reference's line.
    deleted = f"{counts['deleted']} deleted, " if counts["deleted"] else ""
    lines.append(
        f"Summary: {counts['created']} created, {counts['updated']} updated, {deleted}{counts['unchanged']} unchanged"
    )
    if report.serial is not None:
        lines.append(f"Ownership state: serial {report.serial} (operation {report.operation_id})")
    return "\n".join(lines)


def dry_run_results(plan: Plan) -> tuple[tuple[Action, str], ...]:
    verbs = {"create": "would create", "update": "would update"}
    return tuple((a, verbs.get(a.action, "unchanged")) for a in plan.actions)


def dry_run_text(plan: Plan) -> str:
    results = dry_run_results(plan)
    counts = plan.counts
    lines = ["Dry run: nothing is changed.", *_sections(results), ""]
    lines.append(f"Summary: {counts['create']} to create, {counts['update']} to update, {counts['noop']} unchanged")
    return "\n".join(lines)


def apply_data(
    plan: Plan, results: tuple[tuple[Action, str], ...], report: ApplyReport | None, plan_file: str | None
) -> dict[str, Any]:
    return {
        "project": plan.project,
        "environment": plan.environment,
        "dry_run": report is None,
        "plan_file": plan_file,
        "operation_id": report.operation_id if report else None,
        "committed": bool(report and report.serial is not None),
        "state": {"serial": report.serial, "checksum": report.checksum} if report and report.serial else None,
        "actions": [
            {"action": a.action, "identity": a.identity, "kind": a.kind, "name": a.name, "result": r}
            for a, r in results
        ],
        "summary": summary(results),
    }
