"""One check that the text, JSON and Markdown (with its Mermaid graph) of a report say the same thing."""

from __future__ import annotations

import json
from typing import Any

from streamt_impact.render import markdown, mermaid, text
from streamt_impact.report import Report

LABEL = {"security": "SECURITY", "breaking": "BREAKING", "affected": "affected"}


def agree(report: Report) -> tuple[str, dict[str, Any], str]:
    """Assert every change and every impacted reader carries the same label in all formats; return them."""
    data = json.loads(json.dumps(report.to_json()))
    shown, md, graph = text(report), markdown(report), "\n".join(mermaid(report))
    for change in data["changes"]:
        assert f"{change['kind']} {change['name']} ({change['status']})" in shown
        for field in change["fields"]:
            assert f"[{field['classification']}] {field['field']}: {field['reason']}" in shown
            level = field["classification"]
            level = f"**{level}**" if level in ("breaking", "security") else level
            assert f"| `{_md(field['field'])}` | {level} | {_md(field['reason'])} |" in md
    section = md.split("**Impacted downstream**", 1)[-1].split("**Workflows to run**")[0].split("```")[0]
    rows = {
        line.split("`")[1]: line.split(" | ")[2]
        for line in section.splitlines()
        if line.startswith("| ") and "`" in line
    }
    for item in data["impacted"]:
        effect = item["effect"]
        assert effect == ("breaking" if item["breaking"] else effect)
        assert f"  {LABEL[effect]:<12} {item['kind']} {item['name']}" in shown
        assert rows[item["name"]] == (f"**{effect}**" if effect != "affected" else effect)
        assert f"{item['name']} (" in graph and f"impact: {effect})" in graph.split(f"{item['name']} (", 1)[1]
    return shown, data, md


def _md(value: str) -> str:
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'")
