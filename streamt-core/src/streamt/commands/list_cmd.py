"""``streamt list`` and ``streamt show``: project resources as tables and detail records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from streamt.cli.options import project_options
from streamt.errors import Codes, Diagnostic, StreamtError, did_you_mean
from streamt.result import Result

if TYPE_CHECKING:
    from streamt.compile.physical import Physical

_NOT_FOUND = {
    "source": Codes.E101_SOURCE_NOT_FOUND,
    "model": Codes.E102_MODEL_NOT_FOUND,
    "test": Codes.E107_TEST_MODEL_NOT_FOUND,
    "exposure": Codes.E110_EXPOSURE_DEPENDENCY_NOT_FOUND,
}
KINDS = {"sources": "source", "models": "model", "tests": "test", "exposures": "exposure"}


@click.command("list")
@click.argument("resource_type", type=click.Choice(list(KINDS)))
@project_options
@click.option("--select", "selector", default=None, help="tag:x, a name, +name (with upstream), name+ (downstream).")
@click.option("--sort-by", type=click.Choice(["name", "type", "upstream"]), default="name", show_default=True)
def list_(resource_type: str, project_dir: str, env: str | None, selector: str | None, sort_by: str) -> Result:
    """List project resources by type."""
    from streamt.compile.physical import physical_resources, readable_artifacts
    from streamt.dag import build_graph
    from streamt.project import load_project
    from streamt.selection import select

    project = load_project(project_dir, env, lazy_secrets=True)
    graph = build_graph(project)
    warnings: tuple[Diagnostic, ...] = ()
    physical: dict[str, Physical] = {}
    if resource_type in ("sources", "models"):
        artifacts, warnings = readable_artifacts(project, "Physical names left out")
        physical = physical_resources(artifacts)
    kind = KINDS[resource_type]
    items = [summary(project, graph, kind, item, physical.get(item.name)) for item in getattr(project, resource_type)]
    if selector:
        chosen = select(project, graph, selector)
        items = [i for i in items if i["name"] in chosen or i.get("model") in chosen]
    items.sort(key=lambda i: (_sort_key(i, sort_by), i["name"]))
    data = {"resource_type": resource_type, "count": len(items), "items": items}
    lines = [f"{len(items)} {KINDS[resource_type] if len(items) == 1 else resource_type}"]
    for item in items:
        lines.append(f"  {item['name']:<32} {_kind(item):<14} {_relation(item)}".rstrip())
    return Result("list", data=data, text="\n".join(lines), warnings=warnings)


def _kind(item: dict[str, Any]) -> str:
    # Sources have no materialization or type: their topic is what identifies them on a cluster.
    return str(item.get("materialized") or item.get("type") or item.get("topic") or "")


def _relation(item: dict[str, Any]) -> str:
    if "model" in item:
        return f"on {item['model']}"
    up = ", ".join(item.get("upstream", []))
    return f"<- {up}" if up else ""


def _sort_key(item: dict[str, Any], field: str) -> str:
    if field == "type":
        return str(item.get("materialized") or item.get("type") or "")
    if field == "upstream":
        return ",".join(item.get("upstream", []))
    return str(item["name"])


def summary(project: Any, graph: Any, kind: str, item: Any, physical: Physical | None = None) -> dict[str, Any]:
    """One ``list`` item; a source's or model's ``topic`` and ``resource`` are its compiled physical names."""
    resource = physical.to_json() if physical is not None else None
    if kind == "source":
        return {"name": item.name, "topic": item.topic, "owner": item.owner, "columns": len(item.columns),
                "ownership": item.ownership.mode, "downstream": graph.children(item.name),
                "resource": resource}  # fmt: skip
    if kind == "model":
        return {"name": item.name, "materialized": item.materialized,
                "topic": physical.topic if physical is not None else None, "resource": resource,
                "upstream": list(item.upstream), "downstream": graph.children(item.name),
                "owner": item.owner, "tags": list(item.tags)}  # fmt: skip
    if kind == "test":
        return {"name": item.name, "model": item.model, "type": item.type, "assertions": len(item.assertions)}
    return {"name": item.name, "type": item.type, "role": item.role, "owner": item.owner,
            "upstream": graph.parents(item.name), "downstream": graph.children(item.name)}  # fmt: skip


@click.command("show")
@click.argument("resource_type", type=click.Choice(list(KINDS.values())))
@click.argument("name")
@project_options
@click.option("--diff", is_flag=True, help="Show diff between declared and deployed state.")
def show(resource_type: str, name: str, project_dir: str, env: str | None, diff: bool) -> Result:
    """Show detailed information about a single resource."""
    from streamt.dag import build_graph
    from streamt.project import load_project

    project = load_project(project_dir, env, lazy_secrets=not diff)  # only --diff connects
    item = getattr(project, resource_type)(name)
    if item is None:
        pool = [i.name for i in getattr(project, resource_type + "s")]
        code = _NOT_FOUND[resource_type]
        raise StreamtError(code, f"{resource_type.capitalize()} '{name}' not found", did_you_mean(name, pool))
    graph = build_graph(project)
    data: dict[str, Any] = {"resource_type": resource_type, **_detail(project, graph, resource_type, item)}
    warnings: tuple[Diagnostic, ...] = ()
    if resource_type == "model":
        warnings = _add_compiled_view(project, name, data)
    text = _text(resource_type, name, data)
    if diff:
        data["diff"], more = _live_diff(project, name)
        warnings += more
        text += "\n\n" + _diff_text(data["diff"])
    return Result("show", data=data, text=text, warnings=warnings)


def _live_diff(project: Any, name: str) -> tuple[dict[str, Any], tuple[Diagnostic, ...]]:
    """Declared vs live for the artifacts of one declaration: the online plan's own evidence, read-only.

    The same observers, planners and ownership state as ``plan`` (and ``diff``), restricted to the
    artifacts this declaration compiles to; nothing is written and no lock is taken.
    """
    from streamt.compile import validate_and_compile
    from streamt.plan.observe import observers_by_kind
    from streamt.plan.online import local_state_warning, open_backend, plan_online
    from streamt.plugins import get_plugins
    from streamt.state.selection import READ

    loaded = validate_and_compile(project)
    plugins = get_plugins()
    observers = observers_by_kind(plugins, project.runtime)
    mine = [a for a in loaded.compiled.artifacts if a.name == name]
    readable = tuple(a for a in mine if a.ownership == "external" or a.kind in observers)
    backend = open_backend(project, READ)
    plan, _status = plan_online(project, loaded.compiled, backend, readable, plugins)
    diff = {
        "environment": plan.environment,
        "artifacts": [
            {k: action.to_json()[k] for k in ("kind", "identity", "ownership", "action", "summary", "evidence")}
            for action in plan.actions
        ],
        "safety_blockers": [b.to_json() for b in plan.safety_blockers],
        "ownership_requirements": [r.to_json() for r in plan.ownership_requirements],
        "not_observed": [{"kind": a.kind, "identity": a.identity} for a in mine if a not in readable],
    }
    return diff, loaded.warnings + local_state_warning(backend)


def _diff_text(diff: dict[str, Any]) -> str:
    words = {"create": "absent live (would be created)", "noop": "in sync", "adopt": "would be adopted"}
    lines = [f"Declared vs live ({diff['environment']}):"]
    for a in diff["artifacts"]:
        detail = "external: not compared" if a["ownership"] == "external" else words.get(a["action"], a["summary"])
        lines.append(f"  {a['kind']} {a['identity']}: {detail}")
    lines += [f"  {a['kind']} {a['identity']}: not observed (no live reader)" for a in diff["not_observed"]]
    lines += [f"  ! {b['kind']} {b['identity']}: {b['message']}" for b in diff["safety_blockers"]]
    lines += [f"  ? {r['kind']} {r['identity']}: {r['message']}" for r in diff["ownership_requirements"]]
    if len(lines) == 1:
        lines.append("  (this declaration compiles to no deployable artifact)")
    return "\n".join(lines)


def _add_compiled_view(project: Any, name: str, data: dict[str, Any]) -> tuple[Diagnostic, ...]:
    """The seed's compiled blocks (topic with defaults applied, artifacts), when the model compiles.

    A model whose compiler plugin is not installed still shows its declaration: ``show`` is a
    read command, so the compile problem is a warning here and an error in ``compile``.
    """
    from streamt.compile import compiled_view

    try:
        view = compiled_view(project, name)
    except StreamtError as exc:
        first = exc.diagnostics[0]
        data["artifacts"] = None
        data["topic_name"] = data["resource"] = None  # never guessed from the model name
        return (
            Diagnostic(
                Codes.W901_PLUGIN_WARNING,
                f"Compiled view unavailable: {first.code.code}: {first.message}",
                first.suggestion,
            ),
        )
    data["artifacts"] = view["artifacts"]
    physical = view["physical"]
    data["topic_name"] = physical.topic if physical is not None else None
    data["resource"] = physical.to_json() if physical is not None else None
    if "topic" in view:
        data["topic"] = {**data.get("topic", {}), **view["topic"]}
    return ()


def _text(resource_type: str, name: str, data: dict[str, Any]) -> str:
    """Scalars and name lists on one line; SQL and nested records as indented blocks (never Python reprs)."""
    import yaml

    lines = [f"{resource_type} {name}"]
    for key, value in data.items():
        if key in ("resource_type", "name") or value in (None, [], {}, ""):
            continue
        if key in ("sql", "rendered_sql"):
            lines.append(f"  {key}:")
            lines += [f"    {line}" for line in str(value).rstrip().splitlines()]
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            lines.append(f"  {key}: {', '.join(value)}")
        elif isinstance(value, (dict, list)):
            block = yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=False)
            lines.append(f"  {key}:")
            lines += [f"    {line}" for line in block.rstrip().splitlines()]
        else:
            lines.append(f"  {key}: {value}")
    return "\n".join(lines)


def _detail(project: Any, graph: Any, kind: str, item: Any) -> dict[str, Any]:
    import attrs

    if kind == "model":
        return {
            "name": item.name,
            "description": item.description,
            "owner": item.owner,
            "materialized": item.materialized,
            # Only a Flink model has an executor; topic_name and resource come from the compiled view.
            "executor": item.executor if item.materialized == "flink" else None,
            "topic_name": None,
            "resource": None,
            "upstream": list(item.upstream),
            "downstream": graph.children(item.name),
            "sql": item.sql,
            "rendered_sql": item.rendered_sql,
            **{name: _compact(value) if value else {} for name, value in _shown_sections(item).items()},
            "topic": _compact(attrs.asdict(item.topic)),
            "ownership": item.ownership.mode,
            "tags": list(item.tags),
            "columns": model_columns(project, graph, item),
        }
    record = _compact(attrs.asdict(item, recurse=True))
    if kind in ("source", "exposure"):
        record["upstream"] = graph.parents(item.name)
        record["downstream"] = graph.children(item.name)
    return record


def _shown_sections(model: Any) -> dict[str, Any]:
    from streamt.project import sections

    return sections.shown(model, sections.registry())


def _compact(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _compact(v) for k, v in value.items() if v not in (None, (), [], {}) and k != "password"}
    if isinstance(value, (list, tuple)):
        return [_compact(v) for v in value]
    return value


def model_columns(project: Any, graph: Any, model: Any) -> list[dict[str, Any]]:
    """Declared columns, else the columns its SQL yields (``lineage --columns``), each with its ``provenance``."""
    import attrs

    from streamt.sql.lineage import column_lineage

    if model.columns:
        return [{**_compact(attrs.asdict(c)), "provenance": "declared"} for c in model.columns]
    inferred = column_lineage(project, model.name, graph) if model.sql else []
    return [{"name": c["name"], "type": c["type"], "provenance": "inferred", "from": list(c["from"])} for c in inferred]
