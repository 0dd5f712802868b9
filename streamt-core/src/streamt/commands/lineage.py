"""``streamt lineage``: the DAG as ASCII tree, JSON or Mermaid; optionally one model's column lineage."""

from __future__ import annotations

from typing import Any

import click

from streamt.cli.options import project_options
from streamt.errors import Codes, StreamtError, did_you_mean
from streamt.result import Result


@click.command("lineage")
@project_options
@click.option("--model", "model", default=None, help="Focus on one model.")
@click.option("--upstream", is_flag=True, help="Show only upstream dependencies.")
@click.option("--downstream", is_flag=True, help="Show only downstream dependencies.")
@click.option("--columns", is_flag=True, help="Show column-level lineage (requires --model).")
@click.option("--format", "fmt", type=click.Choice(["ascii", "json", "mermaid"]), default="ascii", show_default=True)
def lineage(
    project_dir: str, env: str | None, model: str | None, upstream: bool, downstream: bool, columns: bool, fmt: str
) -> Result:
    """Display data lineage and dependencies."""
    from streamt.dag import build_graph
    from streamt.project import load_project

    project = load_project(project_dir, env)
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
    nodes = [
        {
            "name": n,
            "type": graph.nodes[n].type,
            "materialized": graph.nodes[n].materialized,
            "upstream": [p for p in graph.parents(n) if p in keep],
            "downstream": [c for c in graph.children(n) if c in keep],
        }
        for n in names
    ]
    data: dict[str, Any] = {"nodes": nodes, "edges": [{"from": a, "to": b} for a, b in edges]}
    if columns and model is not None:
        data["columns"] = _column_lineage(project, model)
    if fmt == "json":
        from streamt.output import to_json_text

        return Result("lineage", data=data, text=to_json_text(data).rstrip("\n"), raw=True)
    if fmt == "mermaid":
        text = _mermaid(graph, names, edges)
        return Result("lineage", data={**data, "mermaid": text}, text=text, raw=True)
    text = _ascii(graph, names, edges)
    if columns and model is not None:
        text += "\n\nColumns:\n" + "\n".join(_column_line(c) for c in data["columns"])
    return Result("lineage", data=data, text=text)


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


def _column_lineage(project: Any, name: str) -> list[dict[str, Any]]:
    """Each output column of ``name``: its type and where that type came from, and the columns it reads.

    Types come from declarations: the model's own ``columns``, else the upstream column a plain copy
    or a same-type aggregate (``SUM(amount)``) reads, else an inferred type (``COUNT`` → BIGINT,
    ``CAST(.. AS T)``); anything else stays ``type: null`` with ``type_source: unknown``. An upstream
    model without declared columns contributes the types worked out for it the same way: its
    ancestors are resolved first, in dependency order (a loop, not recursion: chains may be long).
    """
    from streamt.dag import build_graph

    graph = build_graph(project)
    known: dict[str, dict[str, str | None]] = {}
    result: list[dict[str, Any]] = []
    for model_name in _dependencies_first(graph, name):
        model = project.model(model_name)
        if model is not None:
            result = _model_columns(project, model, known)
            known[model_name] = {c["name"]: c["type"] for c in result}
    return result


def _dependencies_first(graph: Any, name: str) -> list[str]:
    wanted = {name, *graph.upstream_of(name)}
    waiting = {n: sum(1 for p in graph.parents(n) if p in wanted) for n in wanted}
    ready = sorted(n for n, count in waiting.items() if count == 0)
    order: list[str] = []
    while ready:
        current = ready.pop(0)
        order.append(current)
        for child in graph.children(current):
            if child in waiting:
                waiting[child] -= 1
                if waiting[child] == 0:
                    ready.append(child)
    return order if name in order else [*order, name]  # a cycle (an invalid project): the model alone last


def _model_columns(project: Any, model: Any, known: dict[str, dict[str, str | None]]) -> list[dict[str, Any]]:
    from streamt.sql.columns import aggregate_of, projection

    declared = {c.name: c.type for c in model.columns}
    if not model.rendered_sql:
        return [_column(c, t, "declared" if t else "unknown", [], None) for c, t in declared.items()]
    shape = projection(model.rendered_sql)
    if shape is None:
        return [_column(c, t, "declared" if t else "unknown", [], None) for c, t in declared.items()]
    upstream = _upstream_types(project, model, known)
    out = []
    if shape.star:
        for dep, columns in upstream.items():
            out += [_column(c, declared.get(c) or t, _source(declared.get(c), t), [f"{dep}.{c}"], None)
                    for c, t in columns.items()]  # fmt: skip
    for item in shape.columns:
        reads = (item.origin,) if item.origin else item.inputs
        origins = [f"{dep}.{c}" for c in reads for dep in _owners(upstream, c)]
        inherited = _inherited_type(item, upstream)
        guessed = None if item.expression and aggregate_of(item.expression) == "AVG" else item.type
        chosen = declared.get(item.name) or inherited or guessed
        kind = _source(declared.get(item.name), inherited) if declared.get(item.name) or inherited else None
        kind = kind or ("inferred" if guessed else "unknown")
        out.append(_column(item.name, chosen, kind, origins, item.expression))
    return out


def _column(name: str, type_: str | None, source: str, origins: list[str], expression: str | None) -> dict[str, Any]:
    return {"name": name, "type": type_, "type_source": source, "from": origins, "expression": expression}


def _source(declared: str | None, upstream: str | None) -> str:
    return "declared" if declared else "upstream" if upstream else "unknown"


def _owners(upstream: dict[str, dict[str, str | None]], column: str) -> list[str]:
    """The dependencies that have ``column``; all of them when none declares it (it is then ambiguous)."""
    having = [dep for dep, columns in upstream.items() if column in columns]
    return having or list(upstream)


def _inherited_type(item: Any, upstream: dict[str, dict[str, str | None]]) -> str | None:
    from streamt.sql.columns import aggregate_of

    column = item.origin or (item.inputs[0] if item.expression and aggregate_of(item.expression) else None)
    if column is None or (item.expression and aggregate_of(item.expression) == "AVG"):
        return None  # AVG of an integer column is not an integer in every engine: not guessed
    types = [columns[column] for columns in upstream.values() if columns.get(column)]
    return types[0] if len(set(types)) == 1 else None


def _upstream_types(
    project: Any, model: Any, known: dict[str, dict[str, str | None]]
) -> dict[str, dict[str, str | None]]:
    """``{dependency: {column: type}}``: a source's columns or schema fields, a model's declared or derived ones."""
    out: dict[str, dict[str, str | None]] = {}
    for dep in model.dependencies:
        source, upstream_model = project.source(dep.name), project.model(dep.name)
        if source is not None:
            columns = source.columns or (source.schema.fields if source.schema else ())
            out[dep.name] = {c.name: c.type for c in columns}
        elif upstream_model is not None and upstream_model.columns:
            out[dep.name] = {c.name: c.type for c in upstream_model.columns}
        else:
            out[dep.name] = dict(known.get(dep.name, {}))
    return out
