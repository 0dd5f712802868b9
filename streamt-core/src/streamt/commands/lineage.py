"""``streamt lineage``: the DAG as ASCII tree, JSON or Mermaid; optionally one model's column lineage."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import project_options
from streamt.errors import Codes, StreamtError, did_you_mean
from streamt.result import Result
from streamt.sql.lineage import column_lineage


@click.command("lineage")
@project_options
@click.option("--model", "model", default=None, help="Focus on one model.")
@click.option("--upstream", is_flag=True, help="Show only upstream dependencies (requires --model).")
@click.option("--downstream", is_flag=True, help="Show only downstream dependencies (requires --model).")
@click.option("--columns", is_flag=True, help="Show column-level lineage (requires --model).")
@click.option("--format", "fmt", type=click.Choice(["ascii", "json", "mermaid"]), default="ascii", show_default=True)
def lineage(
    project_dir: str, env: str | None, model: str | None, upstream: bool, downstream: bool, columns: bool, fmt: str
) -> Result:
    """Display data lineage and dependencies."""
    from streamt.compile.physical import physical_resources, readable_artifacts
    from streamt.dag import build_graph
    from streamt.project import load_project

    focused = [flag for flag, given in (("--upstream", upstream), ("--downstream", downstream)) if given]
    if focused and model is None:
        # Without a model there is nothing to be upstream of: silently showing everything would mislead.
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"{' and '.join(focused)} requires --model.",
            f"Add --model <name> (e.g. `streamt lineage --model <name> {' '.join(focused)}`), or drop "
            f"{' and '.join(focused)} to see the whole DAG.",
        )
    project = load_project(project_dir, env, lazy_secrets=True)
    graph = build_graph(project)
    if columns and model is None:
        raise StreamtError(Codes.E900_USAGE_ERROR, "--columns requires --model.", "Add --model <name>.")
    keep = set(graph.nodes)
    if model is not None:
        if model not in graph.nodes:
            raise StreamtError(
                Codes.E102_MODEL_NOT_FOUND, f"Model '{model}' not found", did_you_mean(model, list(graph.nodes))
            )
        up = set(graph.upstream_of(model)) if not downstream or upstream else set()
        down = set(graph.downstream_of(model)) if not upstream or downstream else set()
        keep = {model} | up | down
    names = [n for n in graph.nodes if n in keep]
    edges = [(a, b) for a, b in graph.edges if a in keep and b in keep]
    everything: list[Any] = [*project.sources, *project.models]
    kept = [d for d in everything if d.name in keep]
    artifacts, warnings = readable_artifacts(project, "Physical names left out", kept) if kept else ((), ())
    physical = physical_resources(artifacts)
    nodes = [
        {
            "name": n,
            "type": graph.nodes[n].type,
            "materialized": graph.nodes[n].materialized,
            "upstream": [p for p in graph.parents(n) if p in keep],
            "downstream": [c for c in graph.children(n) if c in keep],
            # What the node is on the cluster (an exposure has none): the compiled physical names.
            "resource": physical[n].to_json() if n in physical else None,
            "topic": physical[n].topic if n in physical else None,
        }
        for n in names
    ]
    data: dict[str, Any] = {"nodes": nodes, "edges": [{"from": a, "to": b} for a, b in edges]}
    if columns and model is not None:
        data["columns"] = column_lineage(project, model, graph)
    if fmt == "json":
        from streamt.json_output import to_json_text

        return Result("lineage", data=data, text=to_json_text(data).rstrip("\n"), raw=True, warnings=warnings)
    if fmt == "mermaid":
        text = _mermaid(graph, names, edges)
        return Result("lineage", data={**data, "mermaid": text}, text=text, raw=True, warnings=warnings)
    text = _ascii(graph, names, edges)
    if columns and model is not None:
        text += "\n\nColumns:\n" + "\n".join(_column_line(c) for c in data["columns"])
    return Result("lineage", data=data, text=text, warnings=warnings)


def _column_line(column: dict[str, Any]) -> str:
    type_text = column["type"] or "type unknown"
    origin = ", ".join(column["from"]) or "no upstream column"
    via = f" via {column['expression']}" if column["expression"] else ""
    return f"  {column['name']} ({type_text}) <- {origin}{via}"


def _label(graph: Any, name: str) -> str:
    node = graph.nodes[name]
    return f"{name} ({node.materialized or node.type})"


def _ascii(graph: Any, names: list[str], edges: list[tuple[str, str]]) -> str:
    children: dict[str, list[str]] = {n: [] for n in names}
    has_parent: set[str] = set()
    for a, b in edges:
        children[a].append(b)
        has_parent.add(b)
    roots = [n for n in names if n not in has_parent] or names[:1]
    lines: list[str] = []
    printed: set[str] = set()
    # Depth-first, pre-order, with an explicit stack: a 1,000-model chain must not hit Python's
    # recursion limit. Children are pushed in reverse so they are visited in declaration order.
    stack: list[tuple[str, str, bool, int]] = [(root, "", True, 0) for root in reversed(roots)]
    while stack:
        name, prefix, last, depth = stack.pop()
        if depth == 0:
            lines.append(_label(graph, name))
            child_prefix = "    "
        else:
            lines.append(prefix + ("└── " if last else "├── ") + _label(graph, name))
            child_prefix = prefix + ("        " if last else "│       ")
        if name in printed:
            continue
        printed.add(name)
        kids = children.get(name, [])
        for i in range(len(kids) - 1, -1, -1):
            stack.append((kids[i], child_prefix, i == len(kids) - 1, depth + 1))
    return "\n".join(lines) if lines else "(no sources, models or exposures)"


def _mermaid(graph: Any, names: list[str], edges: list[tuple[str, str]]) -> str:
    shapes = {"source": ("[(", ")]"), "model": ("[", "]"), "exposure": ("([", "])")}
    lines = ["graph LR"]
    for name in names:
        left, right = shapes[graph.nodes[name].type]
        lines.append(f'    {name}{left}"{_label(graph, name)}"{right}')
    lines += [f"    {a} --> {b}" for a, b in edges]
    return "\n".join(lines)
