"""Text and Markdown renderings of a report; both are pure functions of it, so their bytes are stable.

The Markdown is a pull-request comment that GitHub and GitLab both render: a summary line, one
table row per changed field, the impacted readers with owners, the workflows to run, and a
Mermaid subgraph of the affected lineage (changed resources and everything they reach).
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from streamt.impact.changes import BREAKING
from streamt.impact.report import Report
from streamt.impact.workflows import WORKFLOWS

MARKER = "<!-- streamt-impact -->"  # lets a CI job find and update its previous comment
_LABEL = {"breaking": "BREAKING", "operational": "OPERATIONAL", "non-breaking": "non-breaking"}


def _value(value: Any) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, separators=(",", ":"))
    return text if len(text) <= 80 else text[:77] + "..."


def _summary(report: Report) -> str:
    counts = report.counts()
    if not report.changes:
        return "No declared changes."
    exposures = sum(1 for i in report.impacted if i.kind == "exposure")
    return (
        f"{len(report.changes)} changed resource{'s' if len(report.changes) != 1 else ''}: "
        f"{counts['breaking']} breaking, {counts['operational']} operational, {counts['non-breaking']} non-breaking; "
        f"{len(report.impacted)} impacted downstream ({exposures} custom application{'s' if exposures != 1 else ''})"
    )


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
    if report.impacted:
        lines += ["", "Impacted downstream:"]
    for item in report.impacted:
        owner = f", owner {item.owner}" if item.owner else ""
        lines.append(f"  {'BREAKING' if item.breaking else 'affected':<12} {item.kind} {item.name}{owner}")
        for reason in item.reasons:
            lines.append(f"      via {' -> '.join((reason.resource, *reason.via))}: {reason.why}")
    if report.workflows():
        lines += ["", "Workflows to run:"]
        lines += [f"  {w}: {WORKFLOWS[w]}" for w in report.workflows()]
    return "\n".join(lines)


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
            level = f"**{field.classification}**" if field.classification == BREAKING else field.classification
            lines.append(
                f"| {change.kind} `{_cell(change.name)}` ({change.status}) | `{_cell(field.field)}` | {level} "
                f"| {_cell(field.reason)} | {_cell(field.workflow or '')} |"
            )
    if report.impacted:
        lines += ["", "**Impacted downstream**", "", "| reader | owner | effect | why |", "|---|---|---|---|"]
    for item in report.impacted:
        effect = "**breaking**" if item.breaking else "affected"
        why = "; ".join(_cell(r.why) for r in item.reasons)
        lines.append(f"| {item.kind} `{_cell(item.name)}` | {_cell(item.owner or '—')} | {effect} | {why} |")
    if report.workflows():
        lines += ["", "**Workflows to run**", ""]
        lines += [f"- `{w}`: {WORKFLOWS[w]}" for w in report.workflows()]
    diagram = mermaid(report)
    if len(diagram) > 1:  # lifecycle tombstones alone have no lineage to draw
        lines += ["", "```mermaid", *diagram, "```"]
    return "\n".join(lines) + "\n"


def mermaid(report: Report) -> list[str]:
    """The changed resources and every reader reached, with the edges between them along the paths."""
    changed = {c.name: c.classification for c in report.changes if c.kind in ("source", "model", "exposure")}
    nodes: dict[str, str] = dict.fromkeys(changed, "changed")
    edges: dict[tuple[str, str], None] = {}
    for item in report.impacted:
        nodes.setdefault(item.name, "breaking" if item.breaking else "affected")
        for reason in item.reasons:
            hops = (reason.resource, *reason.via)
            for a, b in pairwise(hops):
                edges.setdefault((a, b), None)
                nodes.setdefault(a, "affected")
    ids = {name: f"n{i}" for i, name in enumerate(sorted(nodes))}
    lines = ["graph LR"]
    for name in sorted(nodes):
        label = name.replace('"', "#quot;")
        status = changed.get(name) or nodes[name]
        lines.append(f'    {ids[name]}["{label} ({status})"]')
    lines += [f"    {ids[a]} --> {ids[b]}" for a, b in sorted(edges)]
    classes = {"breaking": "fill:#f8d7da", "operational": "fill:#fff3cd", "affected": "fill:#e2e3e5"}
    for name in sorted(nodes):
        style = classes.get(changed.get(name) or nodes[name])
        if style:
            lines.append(f"    style {ids[name]} {style}")
    return lines
