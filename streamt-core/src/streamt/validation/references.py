"""Names and references: duplicates, collisions, unknown sources/models, cycles, access (E101-E111)."""

from __future__ import annotations

from typing import Any

from streamt import kinds
from streamt.dag import find_cycles
from streamt.errors import Codes, Diagnostic, did_you_mean
from streamt.plan.tombstones import prior_kind
from streamt.plugins import get_plugins
from streamt.project import lifecycle
from streamt.project.model import Project


def check(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    out += _duplicates(project)
    out += _model_references(project)
    out += _cycles(project)
    out += _tests(project)
    out += _exposures(project)
    out += _tombstones(project)
    return out


def _duplicates(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for kind, items in (
        ("source", project.sources),
        ("model", project.models),
        ("test", project.tests),
        ("exposure", project.exposures),
    ):
        seen: set[str] = set()
        for item in items:
            if item.name in seen:
                out.append(
                    Diagnostic(
                        Codes.E103_DUPLICATE_NAME,
                        f"Duplicate {kind} name '{item.name}'",
                        f"Rename one of the {kind}s named '{item.name}'; names are unique per kind.",
                        project.locations.get((kind, item.name)),
                    )
                )
            seen.add(item.name)
    sources = {s.name for s in project.sources}
    models = {m.name for m in project.models}
    for name in sorted(sources & models):
        out.append(
            Diagnostic(
                Codes.E111_NAME_COLLISION,
                f"'{name}' is both a source and a model",
                "Rename one: lineage and selectors need one node per name.",
                project.locations.get(("model", name)),
            )
        )
    for exposure in project.exposures:
        if exposure.name in sources or exposure.name in models:
            out.append(
                Diagnostic(
                    Codes.E111_NAME_COLLISION,
                    f"Exposure '{exposure.name}' has the same name as a source or model",
                    "Rename the exposure.",
                    project.locations.get(("exposure", exposure.name)),
                )
            )
    return out


def _model_references(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    sources = [s.name for s in project.sources]
    source_names = set(sources)
    models = {m.name: m for m in project.models}
    for model in project.models:
        location = project.locations.get(("model", model.name))
        for ref in model.dependencies:
            if ref.kind == "source" and ref.name not in source_names:
                out.append(
                    Diagnostic(
                        Codes.E101_SOURCE_NOT_FOUND,
                        f"Source '{ref.name}' not found (referenced by model '{model.name}')",
                        did_you_mean(ref.name, sources) or "Declare it under sources:.",
                        location,
                        {"model": model.name, "source": ref.name},
                    )
                )
            elif ref.kind == "model" and ref.name not in models:
                out.append(
                    Diagnostic(
                        Codes.E102_MODEL_NOT_FOUND,
                        f"Model '{ref.name}' not found (referenced by model '{model.name}')",
                        did_you_mean(ref.name, list(models)) or "Declare it under models:.",
                        location,
                        {"model": model.name, "ref": ref.name},
                    )
                )
            elif ref.kind == "model":
                target = models[ref.name]
                if target.access == "private" and target.group and target.group != model.group:
                    out.append(
                        Diagnostic(
                            Codes.E106_ACCESS_DENIED,
                            f"Model '{model.name}' cannot reference '{ref.name}' "
                            f"(restricted to group '{target.group}')",
                            f"Move '{model.name}' into group '{target.group}' or make '{ref.name}' protected/public.",
                            location,
                        )
                    )
    return out


def _cycles(project: Project) -> list[Diagnostic]:
    adjacency: dict[str, list[str]] = {m.name: [] for m in project.models}
    for model in project.models:
        for ref in model.dependencies:
            if ref.kind == "model" and ref.name in adjacency:
                adjacency[ref.name].append(model.name)
    # A source joins the graph when an exposure writes it: an application that consumes a model and
    # produces a source that model reads is a feedback loop (dsl.md §12), like a model cycle.
    produced_sources = {r.name for e in project.exposures for r in e.produces if r.kind == "source"}
    sources = {s.name for s in project.sources if s.name in produced_sources and s.name not in adjacency}
    for name in sorted(sources):
        adjacency[name] = []
    for model in project.models:
        for ref in model.dependencies:
            if ref.kind == "source" and ref.name in sources:
                adjacency[ref.name].append(model.name)
    for exposure in project.exposures:
        consumed = [
            r.name for r in (*exposure.consumes, *exposure.depends_on) if r.kind == "model" or r.name in sources
        ]
        produced = [r.name for r in exposure.produces]
        if consumed and produced:
            adjacency.setdefault(exposure.name, [])
            for name in consumed:
                if name in adjacency:
                    adjacency[name].append(exposure.name)
            adjacency[exposure.name].extend(p for p in produced if p in adjacency)
    return [
        Diagnostic(
            Codes.E104_CYCLE_DETECTED,
            f"Circular dependency detected: {' -> '.join(cycle)}",
            "Break the cycle: a model cannot depend on itself, directly or through others.",
            project.locations.get(("model", cycle[0])),
            {"cycle": cycle},
        )
        for cycle in find_cycles(list(adjacency), adjacency)
    ]


def _tests(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    targets = [m.name for m in project.models] + [s.name for s in project.sources]
    models = [m.name for m in project.models]
    for test in project.tests:
        location = project.locations.get(("test", test.name))
        if test.model not in targets:
            out.append(
                Diagnostic(
                    Codes.E107_TEST_MODEL_NOT_FOUND,
                    f"Test '{test.name}' references unknown model '{test.model}'",
                    did_you_mean(test.model, targets) or "Point 'model' at a declared model or source.",
                    location,
                )
            )
        for assertion in test.assertions:
            for body in assertion.values() if isinstance(assertion, dict) else ():
                ref_model = body.get("ref_model") if isinstance(body, dict) else None
                if isinstance(ref_model, str) and ref_model not in targets:
                    out.append(_missing_model(test.name, ref_model, models, location))
        for action in test.on_failure.actions if test.on_failure else ():
            dlq = action.get("dlq") if isinstance(action, dict) else None
            if isinstance(dlq, dict) and isinstance(dlq.get("model"), str) and dlq["model"] not in models:
                out.append(_missing_model(test.name, dlq["model"], models, location))
    return out


def _missing_model(test: str, name: str, models: list[str], location: str | None) -> Diagnostic:
    return Diagnostic(
        Codes.E102_MODEL_NOT_FOUND,
        f"Model '{name}' not found (referenced by test '{test}')",
        did_you_mean(name, models) or "Declare the model first.",
        location,
    )


def _exposures(project: Project) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    sources = [s.name for s in project.sources]
    models = [m.name for m in project.models]
    for exposure in project.exposures:
        location = project.locations.get(("exposure", exposure.name))
        for field, refs in (("produces", exposure.produces), ("consumes", exposure.consumes)):
            for ref in refs:
                if ref.kind == "source" and ref.name not in sources:
                    out.append(
                        _exposure_error(
                            Codes.E109_EXPOSURE_SOURCE_NOT_FOUND, exposure.name, field, ref, sources, location
                        )
                    )
                elif ref.kind == "model" and ref.name not in models:
                    code = Codes.E108_EXPOSURE_MODEL_NOT_FOUND
                    out.append(_exposure_error(code, exposure.name, field, ref, models, location))
        for ref in exposure.depends_on:
            pool = sources if ref.kind == "source" else models
            if ref.name not in pool:
                code = Codes.E110_EXPOSURE_DEPENDENCY_NOT_FOUND
                out.append(_exposure_error(code, exposure.name, "depends_on", ref, pool, location))
    return out


def _exposure_error(
    code: Any, exposure: str, field: str, ref: Any, pool: list[str], location: str | None
) -> Diagnostic:
    kind = "source" if ref.kind == "source" else "model"
    return Diagnostic(
        code,
        f"Exposure '{exposure}' {field} unknown {kind} '{ref.name}'",
        did_you_mean(ref.name, pool) or f"Declare the {kind} or fix the name.",
        location,
    )


def _tombstones(project: Project) -> list[Diagnostic]:
    """Two tombstones of one removed resource, or one naming a live model; then each kind's own checks."""
    out: list[Diagnostic] = []
    models = {m.name: m for m in project.models}
    seen: set[tuple[str, str]] = set()
    plugins = get_plugins()
    for removal in kinds.removal_kinds(plugins).values():
        kind = prior_kind(removal.kind)
        for entry in project.lifecycle.entries(removal.key):
            tombstone = removal.tombstone(entry)
            owner, target = tombstone.name, tombstone.identity
            if (kind, target) in seen:
                out.append(_collision(f"Two {kind} tombstones target '{target}'"))
            seen.add((kind, target))
            if owner in models or target in models:
                out.append(_collision(f"Tombstone for {kind} '{target}' names a model that still exists ('{owner}')"))
    return out + lifecycle.checks(project, plugins)


def _collision(message: str) -> Diagnostic:
    return Diagnostic(Codes.E111_NAME_COLLISION, message, "Remove the tombstone or rename the model.")
