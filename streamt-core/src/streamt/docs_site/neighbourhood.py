"""The small graph on each resource page: direct parents, the resource, direct children.

Rendered here as static SVG with links, so a page shows its neighbourhood without script and
without loading the project-wide graph: what keeps a 5,000-model site light page by page.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

WIDTH, BOX_W, BOX_H, GAP = 720, 200, 30, 40


def neighbourhood_svg(rec: dict[str, Any], shown: int) -> Markup:
    up, down = rec["upstream"], rec["downstream"]
    rows = max(len(up[:shown]) + (len(up) > shown), len(down[:shown]) + (len(down) > shown), 1)
    height = rows * GAP + 10
    parts = [
        f'<svg class="neighbourhood" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="direct upstream and downstream">'
    ]
    centre_y = (height - BOX_H) // 2
    middle_x = (WIDTH - BOX_W) // 2
    for column_x, links, incoming in ((10, up, True), (WIDTH - BOX_W - 10, down, False)):
        for i, link in enumerate(links[:shown]):
            y = 5 + i * GAP
            x1, y1, x2, y2 = (column_x + BOX_W, y + BOX_H // 2, middle_x, centre_y + BOX_H // 2)
            if not incoming:
                x1, y1, x2, y2 = middle_x + BOX_W, centre_y + BOX_H // 2, column_x, y + BOX_H // 2
            parts.append(f'<path class="edge" d="M{x1} {y1} C{x1 + 40} {y1} {x2 - 40} {y2} {x2} {y2}"/>')
            parts.append(_box(column_x, y, link["name"], link["kind"], "../" + link["path"]))
        if len(links) > shown:
            y = 5 + shown * GAP + BOX_H // 2 + 5
            parts.append(f'<text class="more" x="{column_x + 8}" y="{y}">+{len(links) - shown} more</text>')
    parts.append(_box(middle_x, centre_y, rec["name"], rec["kind"], None))
    parts.append("</svg>")
    return Markup("".join(parts))


def _box(x: int, y: int, name: str, kind: str, href: str | None) -> str:
    label = name if len(name) <= 26 else name[:25] + "…"
    box = (
        f'<rect class="box {escape(kind)}" x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="6"/>'
        f'<text x="{x + 10}" y="{y + 20}">{escape(label)}<title>{escape(kind)} {escape(name)}</title></text>'
    )
    if href is None:
        return f'<g class="self">{box}</g>'
    return f'<a href="{escape(href)}">{box}</a>'
