"""Column lineage: each output column of a model, its type, where the type came from, the columns it reads.

Types come from declarations: the model's own ``columns``, else the upstream column a plain copy or a
same-type aggregate (``SUM(amount)``) reads, else an inferred type (``COUNT`` → BIGINT, ``CAST(.. AS T)``);
anything else stays ``type: null`` with ``type_source: unknown``. Offline: nothing is read from a registry.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from streamt.sql.columns import aggregate_of, projection


def column_lineage(
    project: Any, name: str, graph: Any, known: dict[str, dict[str, str | None]] | None = None
) -> list[dict[str, Any]]:
    """``[{name, type, type_source, from, expression}]`` for model ``name``.

    An upstream model without declared columns contributes the types worked out for it the same
    way: its ancestors are resolved first, in dependency order (a loop, not recursion: chains may be long).
    ``known`` (model -> column -> type) may be shared between calls on one project: an ancestor
    resolved by an earlier call is not parsed again.
    """
    known = {} if known is None else known
    result: list[dict[str, Any]] = []
    for model_name in _dependencies_first(graph, {name, *graph.upstream_of(name)}):
        if model_name in known and model_name != name:
            continue
        model = project.model(model_name)
        if model is not None:
            result = _model_columns(project, model, known)
            known[model_name] = {c["name"]: c["type"] for c in result}
    return result


def undeclared_column_lineage(project: Any, graph: Any) -> dict[str, list[dict[str, Any]]]:
    """``column_lineage`` of every model that declares no columns, each resolved once (for the docs site).

    Models with declared columns are skipped: their columns are known, and reading a select list
    costs a SQL parse (milliseconds per model, which thousands of models would add up to).
    """
    wanted = {m.name for m in project.models if not m.columns}
    known: dict[str, dict[str, str | None]] = {}
    out: dict[str, list[dict[str, Any]]] = {}
    for model_name in _dependencies_first(graph, set(graph.nodes)):
        model = project.model(model_name) if model_name in wanted else None
        if model is not None:
            out[model_name] = _model_columns(project, model, known)
            known[model_name] = {c["name"]: c["type"] for c in out[model_name]}
    return out


def _dependencies_first(graph: Any, wanted: set[str]) -> list[str]:
    """``wanted`` in dependency order; nodes on a cycle (an invalid project) come last, in name order."""
    waiting = {n: sum(1 for p in graph.parents(n) if p in wanted) for n in wanted}
    ready = deque(sorted(n for n, count in waiting.items() if count == 0))
    order: list[str] = []
    while ready:
        current = ready.popleft()
        order.append(current)
        for child in graph.children(current):
            if child in waiting:
                waiting[child] -= 1
                if waiting[child] == 0:
                    ready.append(child)
    return order + sorted(wanted - set(order))


def _model_columns(project: Any, model: Any, known: dict[str, dict[str, str | None]]) -> list[dict[str, Any]]:
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
