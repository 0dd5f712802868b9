"""Render the site: Jinja2 templates (autoescaped) over the records of ``content``.

Every page links to its neighbours with relative paths, and the lineage data travels inside
``lineage.html`` as JSON, so the folder works opened straight from disk (``file://``) with no
server and no network. Resource pages carry a small server-rendered neighbourhood graph, so even a
project of thousands of models never needs the whole graph to read about one model.
"""

from __future__ import annotations

import json
from importlib import resources as package_resources
from typing import Any

import jinja2

from streamt.dag import build_graph
from streamt.docs_paths import slug
from streamt.docs_site import content
from streamt.docs_site.extensions import DocsNodeDetail, DocsPage
from streamt.docs_site.layout import layered
from streamt.docs_site.neighbourhood import neighbourhood_svg
from streamt.sql.lineage import undeclared_column_lineage

ASSETS = ("site.css", "index.js", "lineage.js")
NEIGHBOURS_SHOWN = 12


def site_files(project: Any, artifacts: list[Any], contributions: list[Any]) -> dict[str, bytes]:
    """Every file of the site (relative path -> bytes) for ``project`` and its compiled ``artifacts``."""
    env = _environment()
    graph = build_graph(project)
    by_owner: dict[str, list[Any]] = {}
    for artifact in artifacts:
        by_owner.setdefault(artifact.name, []).append(artifact)
    tests_of: dict[str, list[str]] = {}
    for test in sorted(project.tests, key=lambda t: t.name):
        tests_of.setdefault(test.model, []).append(test.name)
    lineage = undeclared_column_lineage(project, graph)
    records = [
        content.record(
            project,
            graph,
            kind,
            item,
            by_owner.get(item.name, []) if kind != "test" else [],
            tests_of.get(item.name, []) if kind == "model" else [],
            lineage.get(item.name, []) if kind == "model" else [],
        )
        for kind, item in content.resources(project)
    ]
    details = sorted(
        (c for c in contributions if isinstance(c, DocsNodeDetail)), key=lambda d: (d.resource_type, d.name)
    )
    by_key = {(r["kind"], r["name"]): r for r in records}
    for detail in details:
        target = by_key.get((detail.resource_type, detail.name))
        if target is not None:
            target["details"].append(detail.section)
    pages = sorted((c for c in contributions if isinstance(c, DocsPage)), key=lambda p: p.slug)
    # Every page says which environment it describes: names and settings differ between them.
    common = {"project": project.name, "environment": project.env, "description": project_description(project)}
    files: dict[str, bytes] = {}
    resource_template = env.get_template("resource.html.j2")
    for rec in records:
        svg = neighbourhood_svg(rec, NEIGHBOURS_SHOWN)
        files[rec["path"]] = _bytes(resource_template.render(**common, root="../", r=rec, svg=svg))
    extra = [{"title": p.title, "path": f"pages/{slug(p.slug)}.html"} for p in pages]
    page_template = env.get_template("page.html.j2")
    for page, link in zip(pages, extra, strict=True):
        files[link["path"]] = _bytes(page_template.render(**common, root="../", page=page))
    tags = sorted({t for r in records for t in r["tags"]})
    counts = {kind: sum(1 for r in records if r["kind"] == kind) for kind in content.KINDS}
    rows = [
        [r["name"], r["kind"], r["facts"][0][1] if r["facts"] else "", r["owner"], r["tags"], r["description"][:160],
         r["path"]]
        for r in records
    ]  # fmt: skip
    files["index.html"] = _bytes(
        env.get_template("index.html.j2").render(
            **common, root="", index_json=_script_json(rows), tags=tags, counts=counts, extra=extra
        )
    )
    names = list(graph.nodes)
    data = content.graph_data(graph, layered(names, list(graph.edges)), project)
    files["lineage.html"] = _bytes(
        env.get_template("lineage.html.j2").render(
            **common, root="", graph_json=_script_json(data), node_count=len(names), edge_count=len(graph.edges)
        )
    )
    for name in ASSETS:
        files[f"assets/{name}"] = package_resources.files("streamt.docs_site").joinpath("assets", name).read_bytes()
    return dict(sorted(files.items()))


def project_description(project: Any) -> str:
    return project.info.description or ""


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("streamt.docs_site", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        auto_reload=False,  # the templates ship in the package: no stat of base.html.j2 per page
    )
    env.filters["slug"] = slug
    return env


def _script_json(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``</script>`` or comment opener can close it."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8")
