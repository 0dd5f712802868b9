"""The site's content as plain records: one per resource page, the index rows and the graph.

Everything is read from the loaded project and its compiled artifacts; nothing is looked up live.
Records are sorted by name so the rendered bytes never depend on file discovery order.
"""

from __future__ import annotations

from typing import Any

import attrs
import yaml

from streamt.compile.physical import physical_resources
from streamt.dag import Graph
from streamt.docs_paths import FOLDERS, page_path

KINDS = ("source", "model", "test", "exposure")


def resources(project: Any) -> list[tuple[str, Any]]:
    """``(kind, declaration)`` for every source, model, test and exposure, by kind then name."""
    out: list[tuple[str, Any]] = []
    for kind in KINDS:
        out += sorted(((kind, item) for item in getattr(project, FOLDERS[kind])), key=lambda pair: pair[1].name)
    return out


def record(
    project: Any, graph: Graph, kind: str, item: Any, artifacts: list[Any], tests: list[str], lineage: list[Any]
) -> dict[str, Any]:
    """One resource page: title facts, columns, SQL, artifacts, neighbours.

    ``lineage`` is the column lineage (``streamt.sql.lineage``) of a model without declared
    columns: the columns and types its SQL yields, and where each comes from.
    """
    facts: list[tuple[str, str]] = []
    columns: list[dict[str, str]] = []
    sql = ""
    body_yaml = ""
    if kind == "model":
        # The names a consumer meets on the cluster, from this model's compiled artifacts.
        physical = physical_resources(artifacts).get(item.name)
        facts = _facts(materialized=item.materialized, executor=item.executor if item.materialized == "flink" else None,
                       topic=physical.topic if physical else None,
                       resource=f"{physical.kind} {physical.name}" if physical else None,
                       access=item.access, group=item.group, ownership=item.ownership.mode)  # fmt: skip
        classification = dict(item.security.classification) if item.security else {}
        masks = _masks(item)
        columns = [_column(c, classification, masks) for c in item.columns]
        if not columns:
            columns = [_derived_column(c, classification, masks) for c in lineage]
        sql = (item.rendered_sql if item.rendered_sql is not None else item.sql) or ""
    elif kind == "source":
        schema = item.schema
        facts = _facts(topic=item.topic, cluster=item.cluster, ownership=item.ownership.mode,
                       subject=schema.subject if schema else None, format=schema.format if schema else None,
                       compatibility=schema.compatibility if schema else None)  # fmt: skip
        columns = [_column(c, {}, {}) for c in (item.columns or (schema.fields if schema else ()))]
    elif kind == "test":
        facts = _facts(model=item.model, type=item.type, sample_size=item.sample_size,
                       severity=item.on_failure.severity if item.on_failure else None)  # fmt: skip
        if item.assertions:
            body_yaml = yaml.safe_dump([dict(a) for a in item.assertions], sort_keys=True, allow_unicode=True)
    else:
        facts = _facts(type=item.type, role=item.role, url=item.url, repo=item.repo, language=item.language,
                       tool=item.tool, consumer_group=item.consumer_group, schedule=item.schedule)  # fmt: skip
    consumes = []
    if kind == "exposure":
        consumes = [
            {"name": ref.name, "path": page_path(ref.kind, ref.name), "columns": [c.name for c in ref.columns]}
            for ref in item.consumes
            if ref.columns
        ]
    in_graph = kind != "test"
    upstream = graph.parents(item.name) if in_graph else [item.model]
    downstream = graph.children(item.name) if in_graph else []
    return {
        "kind": kind,
        "name": item.name,
        "path": page_path(kind, item.name),
        "description": getattr(item, "description", None) or "",
        "owner": getattr(item, "owner", None) or "",
        "tags": sorted(getattr(item, "tags", ()) or ()),
        "facts": facts,
        "columns": columns,
        "sql": sql.strip("\n"),
        "yaml": body_yaml,
        "artifacts": [
            {"kind": a.kind, "identity": a.identity, "ownership": a.ownership, "checksum": a.checksum}
            for a in sorted(artifacts, key=lambda a: a.sort_key)
        ],
        "upstream": [_link(graph, project, n) for n in upstream],
        "downstream": [_link(graph, project, n) for n in downstream],
        "tests": tests,
        "in_graph": in_graph,
        "details": [],
        "consumes": consumes,
    }


def graph_data(graph: Graph, positions: dict[str, tuple[int, int]], project: Any) -> dict[str, Any]:
    """Nodes as ``[name, type, label, x, y, path]`` and edges as index pairs: compact at 5,000 models."""
    names = list(graph.nodes)
    index = {n: i for i, n in enumerate(names)}
    nodes = []
    for name in names:
        node = graph.nodes[name]
        x, y = positions[name]
        nodes.append([name, node.type, node.materialized or node.type, x, y, page_path(node.type, name)])
    edges = [[index[a], index[b]] for a, b in graph.edges]
    return {"project": project.name, "nodes": nodes, "edges": edges}


def _link(graph: Graph, project: Any, name: str) -> dict[str, str]:
    node = graph.nodes.get(name)
    kind = node.type if node is not None else "model"
    return {"name": name, "kind": kind, "path": page_path(kind, name)}


def _facts(**values: Any) -> list[tuple[str, str]]:
    return [(key.replace("_", " "), str(value)) for key, value in values.items() if value not in (None, "")]


def _masks(model: Any) -> dict[str, str]:
    """Column -> how its ``mask`` policies hide it (``method``, and for whom), as the Gateway applies them."""
    masks: dict[str, list[str]] = {}
    for policy in model.security.policies if model.security else ():
        if policy.kind == "mask" and policy.column:
            roles = f" for {', '.join(policy.for_roles)}" if policy.for_roles else ""
            masks.setdefault(policy.column, []).append(f"{policy.method or 'null'}{roles}")
    return {column: "; ".join(ways) for column, ways in masks.items()}


def _column(column: Any, classification: dict[str, str], masks: dict[str, str]) -> dict[str, str]:
    record = attrs.asdict(column)
    return {
        "name": record["name"],
        "type": record.get("type") or "",
        "classification": record.get("classification") or classification.get(record["name"], ""),
        "mask": masks.get(record["name"], ""),
        "description": record.get("description") or "",
        "origin": "declared",
    }


def _derived_column(derived: dict[str, Any], classification: dict[str, str], masks: dict[str, str]) -> dict[str, str]:
    return {
        "name": derived["name"],
        "type": derived["type"] or "",
        "classification": classification.get(derived["name"], ""),
        "mask": masks.get(derived["name"], ""),
        "description": "",
        "origin": _origin(derived),
    }


def _origin(derived: dict[str, Any]) -> str:
    via = f" via {derived['expression']}" if derived.get("expression") else ""
    return (", ".join(derived["from"]) or "no upstream column") + via
