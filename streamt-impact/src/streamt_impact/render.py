"""Text and Markdown renderings of a report; both are pure functions of it, so their bytes are stable.

The Markdown is a pull-request comment that GitHub and GitLab both render: a summary line, one
table row per changed field, the impacted readers with owners, the workflows to run, and a
Mermaid subgraph of the affected lineage (changed resources and everything they reach).

Every label comes from the report's classified values (``FieldChange.classification``,
``Impacted.effect``, ``Report.nodes``) through the one table below, so the formats cannot disagree.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from streamt_impact.report import Node, Report

MARKER = "<!-- streamt-impact -->"  # lets a CI job find and update its previous comment
_LABEL = {
    "security": "SECURITY",
    "breaking": "BREAKING",
    "operational": "OPERATIONAL",
    "non-breaking": "non-breaking",
    "affected": "affected",
}
_EMPHASIZED = ("breaking", "security")


def _value(value: Any) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= 80 else text[:77] + "..."


def _summary(report: Report) -> str:
    counts = report.counts()
    if not report.changes:
        return "No declared changes."
    security = f"{counts['security']} security, " if counts["security"] else ""
    kinds = ", ".join(f"{n} {_plural(kind, n)}" for kind, n in report.impacted_by_type().items())
    return (
        f"{len(report.changes)} changed resource{'s' if len(report.changes) != 1 else ''}: {security}"
        f"{counts['breaking']} breaking, {counts['operational']} operational, {counts['non-breaking']} non-breaking; "
        f"{len(report.impacted)} impacted downstream" + (f" ({kinds})" if kinds else "")
    )


def _plural(word: str, n: int) -> str:
    return word if n == 1 else word + "s"


def text(report: Report) -> str:
    lines = [
        f"Impact of {report.head.shown} against {report.base.shown} (environment {report.environment})",
        _summary(report),
    ]
    if report.changes:
        lines += ["", "Changes:"]
    for change in report.changes:
        lines.append(f"  {_LABEL[change.classification]:<12} {change.kind} {change.name} ({change.status})")
        for field in change.fields:
            short = all(len(_value(v)) <= 40 for v in (field.before, field.after))
            short = short and (field.before, field.after) != (None, None)
            detail = (
                f"{_value(field.before)} -> {_value(field.after)}" if short and field.field != "declaration" else ""
            )
            lines.append(
                f"      [{field.classification}] {field.field}: {field.reason}" + (f"  ({detail})" if detail else "")
            )
            if field.workflow:
                lines.append(f"          workflow: {field.workflow}")
        for advice in change.advice:
            lines.append(f"      plan: {_advice_line(advice)}")
    if report.impacted:
        lines += ["", "Impacted downstream:"]
    for item in report.impacted:
        owner = f", owner {item.owner}" if item.owner else ""
        shown = f"{item.kind} {item.name}" + (f" ({item.type})" if item.kind == "exposure" and item.type else "")
        lines.append(f"  {_LABEL[item.effect]:<12} {shown}{owner}")
        for reason in item.reasons:
            lines.append(f"      via {' -> '.join((reason.resource, *reason.via))}: {reason.why}")
    if report.workflows():
        lines += ["", "Workflows to run:"]
        lines += [f"  {w}: {d}" for w, d in report.workflows()]
    return "\n".join(lines)


def _advice_line(advice: Any) -> str:
    """One advice as one line: what plan does, the setting to change first, the state, the commands."""
    parts = [f"{advice.kind} {advice.identity}: " + ("BLOCKED: " if advice.blocked else "") + advice.summary]
    if advice.setting:
        parts.append(f"first set {advice.setting}")
    if advice.state_compatible is not None:
        parts.append("state compatible" if advice.state_compatible else "state NOT compatible")
    if advice.commands:
        parts.append("then run " + " and ".join(advice.commands))
    return "; ".join(parts)


def _cell(value: str) -> str:
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'")


def markdown(report: Report) -> str:
    headline = (report.highest or "no changes").replace("-", " ")
    lines = [
        MARKER,
        f"### streamt impact: {headline}",
        "",
        f"Base `{_cell(report.base.shown)}` → head `{_cell(report.head.shown)}`, environment "
        f"`{_cell(report.environment)}`. {_summary(report)}",
    ]
    if report.changes:
        lines += ["", "| resource | field | classification | change | workflow |", "|---|---|---|---|---|"]
    for change in report.changes:
        for field in change.fields:
            level = _emphasized(field.classification)
            lines.append(
                f"| {change.kind} `{_cell(change.name)}` ({change.status}) | `{_cell(field.field)}` | {level} "
                f"| {_cell(field.reason)} | {_cell(field.workflow or '')} |"
            )
    if report.impacted:
        lines += ["", "**Impacted downstream**", "", "| reader | owner | effect | why |", "|---|---|---|---|"]
    for item in report.impacted:
        why = "; ".join(_cell(r.why) for r in item.reasons)
        lines.append(
            f"| {item.kind} `{_cell(item.name)}` | {_cell(item.owner or '—')} | {_emphasized(item.effect)} | {why} |"
        )
    if report.workflows():
        lines += ["", "**Workflows to run**", ""]
        lines += [f"- `{w}`: {_cell(d)}" for w, d in report.workflows()]
    if report.advice():
        lines += ["", "**What plan will do**", ""]
        lines += [f"- {_cell(line)}" for line in map(_advice_line, report.advice())]
    diagram = mermaid(report)
    if len(diagram) > 1:  # lifecycle tombstones alone have no lineage to draw
        lines += ["", "```mermaid", *diagram, "```"]
    return "\n".join(lines) + "\n"


def _emphasized(level: str) -> str:
    return f"**{level}**" if level in _EMPHASIZED else level


def mermaid(report: Report) -> list[str]:
    """The changed resources and every reader reached, with the edges between them along the paths."""
    nodes = report.nodes()
    edges: dict[tuple[str, str], None] = {}
    for item in report.impacted:
        for reason in item.reasons:
            for a, b in pairwise((reason.resource, *reason.via)):
                edges.setdefault((a, b), None)
    names = sorted({n.name for n in nodes} | {name for edge in edges for name in edge})
    by_name = {n.name: n for n in nodes}
    ids = {name: f"n{i}" for i, name in enumerate(names)}
    lines = ["graph LR"]
    for name in names:
        node = by_name.get(name)
        label = name.replace('"', "#quot;") + (f" ({node.label})" if node is not None else "")
        lines.append(f'    {ids[name]}["{label}"]')
    lines += [f"    {ids[a]} --> {ids[b]}" for a, b in sorted(edges)]
    for name in names:
        node = by_name.get(name)
        worst = _worst(node) if node is not None else None
        style = _STYLES.get(worst) if worst is not None else None
        if style:
            lines.append(f"    style {ids[name]} {style}")
    return lines


_STYLES = {
    "security": "fill:#e7d4f5",
    "breaking": "fill:#f8d7da",
    "operational": "fill:#fff3cd",
    "affected": "fill:#e2e3e5",
}


def _worst(node: Node) -> str | None:
    """The style of a node: its effect as a reader or its own change, whichever is more severe."""
    order = ("non-breaking", "affected", "operational", "breaking", "security")
    levels = [level for level in (node.change, node.effect) if level is not None]
    return max(levels, key=order.index) if levels else None
