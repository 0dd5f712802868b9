"""``streamt validate``: load, check references/runtime/governance, report counts and findings."""

from __future__ import annotations

from typing import Any

import attrs
import click

from streamt.cli.options import project_dir_option
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.result import Result
from streamt.sdk.protocols import SubjectCheckingObserver
from streamt.values import replace


@click.command("validate")
@project_dir_option
@click.option("--env", "-e", "env", default=None, help="Target environment (multi-env mode).")
@click.option("--all-envs", is_flag=True, help="Validate every environment, in sorted order.")
@click.option("--model", "-m", "model", default=None, help="Validate only this model and its dependencies.")
@click.option(
    "--check-schemas",
    is_flag=True,
    help="Read external subjects, versions, formats and references from Schema Registry.",
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
def validate(
    project_dir: str, env: str | None, all_envs: bool, model: str | None, check_schemas: bool, strict: bool
) -> Result:
    """Validate project configuration, syntax and governance rules."""
    from pathlib import Path

    from streamt.project import environments

    if all_envs:
        names = list(environments.available(Path(project_dir))) if environments.is_multi(Path(project_dir)) else []
        if not names:
            raise StreamtError(
                Codes.E503_ENVIRONMENT_ERROR, "--all-envs needs environments/<name>.yml files.", "Drop --all-envs."
            )
        runs = [_validate_one(project_dir, name, model, strict, check_schemas) for name in names]
        errors = tuple(d for r in runs for d in r["errors"])
        warnings = tuple(d for r in runs for d in r["warnings"])
        data = {"environments": [r["data"] for r in runs], "valid": not errors}
        text = "\n\n".join(f"[{r['data']['environment']}]\n{r['text']}" for r in runs)
        return Result("validate", data=data, text=text, errors=errors, warnings=warnings)
    run = _validate_one(project_dir, env, model, strict, check_schemas)
    return Result("validate", data=run["data"], text=run["text"], errors=run["errors"], warnings=run["warnings"])


def _validate_one(
    project_dir: str, env: str | None, model: str | None, strict: bool, check_schemas: bool = False
) -> dict[str, Any]:
    from streamt.collector import collector_paused
    from streamt.project import load_project
    from streamt.validation import validate_project

    # As compile and plan do: the project's objects live until the command ends (collector.py).
    with collector_paused():
        try:
            # --check-schemas reads Schema Registry: only then are its secrets needed.
            project = load_project(project_dir, env, lazy_secrets=not check_schemas)
        except StreamtError as exc:
            errors = [_tag(d, env) for d in exc.diagnostics]
            return {
                "data": {"environment": env, "valid": False},
                "text": "✗ Project could not be loaded",
                "errors": list(errors),
                "warnings": [],
            }
        if model is None:
            report = validate_project(project)
        else:
            whole = project
            project = _scoped(project, model)
            report = _with_whole_project_hints(validate_project(project), validate_project(whole, plugins=False))
    errors = [_tag(d, env) for d in report.errors]
    warnings = [_tag(d, env) for d in report.warnings]
    schemas: list[dict[str, Any]] | None = None
    if check_schemas and not errors:
        schemas, found = _check_schemas(project)
        errors += [_tag(d, env) for d in found if d.code.code.startswith("E")]
        warnings += [_tag(d, env) for d in found if not d.code.code.startswith("E")]
    if strict and warnings:
        # The warnings keep their codes; they now fail the run, so they are listed under errors.
        errors += warnings
        warnings = []
    valid = not errors
    counts = {
        "sources": len(project.sources),
        "models": len(project.models),
        "tests": len(project.tests),
        "exposures": len(project.exposures),
    }
    data: dict[str, Any] = {
        "project": project.name,
        "environment": project.env,
        "valid": valid,
        "strict": strict,
        "counts": counts,
        **counts,
        "models_materialized": {m.name: m.materialized for m in project.models},
        "notices": [n.to_json() for n in report.notices],
        "governance": [{"status": s, "message": m} for s, m in report.governance],
    }
    if schemas is not None:
        data["schemas"] = schemas
    mark = "✓" if valid else "✗"
    lines = [f"{mark} Project '{project.name}' is {'valid' if valid else 'invalid'}", ""]
    lines += [f"  {k.capitalize() + ':':<10} {v}" for k, v in counts.items()]
    if report.governance:
        lines += ["", "Governance:"]
        symbols = {"ok": "✓", "warn": "⚠", "fail": "✗"}
        lines += [f"  {symbols[s]} {m}" for s, m in report.governance]
    if report.notices:
        lines += ["", "Notices:"] + [f"  • {n.code}: {n.message}" for n in report.notices]
    if schemas is not None:
        lines += ["", f"Schema Registry: {len(schemas)} external subject{'' if len(schemas) == 1 else 's'} checked"]
        lines += [f"  {s['subject']} v{s.get('version', '?')} {s.get('format', '')}".rstrip() for s in schemas]
    return {"data": data, "text": "\n".join(lines), "errors": tuple(errors), "warnings": tuple(warnings)}


def _check_schemas(project: Any) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """The registry's facts and findings for every external subject; no subject, no connection."""
    from streamt.plan.observe import observers_by_kind
    from streamt.plugins import get_plugins

    declared = [
        {
            "source": s.name,
            "subject": s.schema.subject or f"{s.topic}-value",
            "format": s.schema.format,
            "version": s.schema.version,
            "columns": [{"name": c.name, "type": c.type} for c in (s.columns or s.schema.fields)],
        }
        for s in project.sources
        if s.schema is not None and s.ownership.mode == "external"
    ]
    if not declared:
        return [], []
    observer = observers_by_kind(get_plugins(), project.runtime).get("schema")
    if not isinstance(observer, SubjectCheckingObserver):
        raise StreamtError(
            Codes.E903_PLUGIN_REQUIRED,
            "--check-schemas needs the Schema Registry support of the Kafka plugin.",
            "pip install 'streamt[kafka]'",
        )
    facts, found = observer.check_subjects(declared)
    return list(facts), list(found)


def _with_whole_project_hints(scoped: Any, whole: Any) -> Any:
    """``scoped``'s findings with the suggestions the whole project gives them (a missing name's
    "did you mean" is looked for among every declaration, not only among those ``-m`` kept)."""
    hints = {(d.code, d.message, d.location): d.suggestion for d in (*whole.errors, *whole.warnings)}

    def hinted(found: tuple[Diagnostic, ...]) -> tuple[Diagnostic, ...]:
        return tuple(replace(d, suggestion=hints.get((d.code, d.message, d.location)) or d.suggestion) for d in found)

    return attrs.evolve(scoped, errors=hinted(scoped.errors), warnings=hinted(scoped.warnings))


def _scoped(project: Any, model: str) -> Any:
    from streamt.dag import build_graph
    from streamt.errors import did_you_mean

    if project.model(model) is None:
        raise StreamtError(
            Codes.E102_MODEL_NOT_FOUND,
            f"Model '{model}' not found",
            did_you_mean(model, [m.name for m in project.models]),
        )
    keep = {model, *build_graph(project).upstream_of(model)}
    return attrs.evolve(
        project,
        models=tuple(m for m in project.models if m.name in keep),
        sources=tuple(s for s in project.sources if s.name in keep),
        tests=tuple(t for t in project.tests if t.model in keep),
        exposures=(),
    )


def _tag(diagnostic: Diagnostic, env: str | None) -> Diagnostic:
    """Name the environment on each finding when one was chosen (``--all-envs`` mixes several)."""
    if env is None:
        return diagnostic
    return replace(diagnostic, details={**diagnostic.details, "environment": env})
