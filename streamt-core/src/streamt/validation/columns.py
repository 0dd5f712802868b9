"""Column-level checks (W102, W103, W201, W202, W203, W301, E302) and upstream-only notices.

A model's output columns are its declared ``columns``, else what its SQL projects (types carried
from upstream columns, ``*`` expanded from a single upstream). They are computed only for models
that something actually checks, because SQL analysis is the expensive part of validation.
"""

from __future__ import annotations

from typing import Any

from streamt import kinds
from streamt.errors import Codes, Diagnostic
from streamt.plugins import get_plugins
from streamt.project.model import Column, ExposureRef, Model, Notice, Project
from streamt.sql.columns import (
    WINDOW_COLUMNS,
    projection,
    referenced_columns,
    type_family,
)


class OutputColumns:
    """Memoised output columns per source/model name: ``{column: type or None}`` or ``None`` if unknown."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.cache: dict[str, dict[str, str | None] | None] = {}

    def of(self, name: str, kind: str, depth: int = 0) -> dict[str, str | None] | None:
        key = f"{kind}:{name}"
        if key in self.cache:
            return self.cache[key]
        self.cache[key] = None  # guards against cycles
        if kind == "source":
            source = self.project.source(name)
            result = {c.name: c.type for c in source.columns} if source and source.columns else None
        else:
            model = self.project.model(name)
            result = self._model(model, depth) if model is not None and depth < 200 else None
        self.cache[key] = result
        return result

    def _model(self, model: Model, depth: int) -> dict[str, str | None] | None:
        if model.columns:
            return {c.name: c.type for c in model.columns}
        if model.rendered_sql is None:
            deps = model.dependencies
            return self.of(deps[0].name, deps[0].kind, depth + 1) if len(deps) == 1 else None
        shape = projection(model.rendered_sql)
        if shape is None:
            return None
        upstream: dict[str, str | None] = {}
        known_upstream = True
        for dep in model.dependencies:
            columns = self.of(dep.name, dep.kind, depth + 1)
            if columns is None:
                known_upstream = False
            else:
                for column, sql_type in columns.items():
                    upstream.setdefault(column, sql_type)
        out: dict[str, str | None] = {}
        if shape.star:
            if not known_upstream:
                return None
            out.update(upstream)
        for item in shape.columns:
            out[item.name] = upstream.get(item.origin) if item.origin is not None else item.type
        return out


def check(project: Project) -> tuple[list[Diagnostic], list[Notice]]:
    out: list[Diagnostic] = []
    notices: list[Notice] = []
    outputs = OutputColumns(project)
    loc = project.locations.get
    used = {d.name for m in project.models for d in m.dependencies if d.kind == "source"}
    used |= {r.name for e in project.exposures for r in (*e.consumes, *e.depends_on, *e.produces) if r.kind == "source"}
    used |= {t.model for t in project.tests}
    for source in project.sources:
        location = loc(("source", source.name))
        if not source.columns:
            out.append(
                Diagnostic(
                    Codes.W203_SOURCE_NO_COLUMNS,
                    f"Source '{source.name}' has no column definitions",
                    "Declare columns so lineage, contracts and tests can check them.",
                    location,
                )
            )
        if source.name not in used:
            out.append(
                Diagnostic(
                    Codes.W202_UNUSED_SOURCE,
                    f"Source '{source.name}' is not referenced by any model or exposure",
                    "Remove it, or reference it with {{ source('" + source.name + "') }}.",
                    location,
                )
            )
        event_time = source.event_time
        declared = {c.name for c in source.columns}
        if event_time and event_time.column and declared and event_time.column not in declared:
            out.append(_missing_source_column(source.name, event_time.column, "event_time", location))
    has_gateway = project.runtime.enables("virtual_topic")
    for model in project.models:
        location = loc(("model", model.name))
        out += _model_checks(project, model, outputs, location)
        out += _source_columns_read(project, model, location)
        notices += _model_notices(model, has_gateway)
    for exposure in project.exposures:
        location = loc(("exposure", exposure.name))
        for ref in (*exposure.consumes, *exposure.produces, *exposure.depends_on):
            out += _exposure_columns(exposure.name, ref, outputs, location)
        if exposure.sla:
            notices.append(
                Notice(
                    code="SLA_NOT_ENFORCED",
                    message=f"SLA of exposure '{exposure.name}' is metadata only",
                    subject=exposure.name,
                )
            )
    # Assertion kinds are open (streamt.kinds): the catalog's and the ones installed plugins declare.
    plugins = get_plugins()
    known_assertions = set(kinds.known(plugins, kinds.ASSERTION)) | set(kinds.assertion_kinds(plugins))
    for test in project.tests:
        notices += _test_notices(test, known_assertions)
    return out, notices


def _missing_source_column(source: str, column: str, used_by: str, location: str | None) -> Diagnostic:
    return Diagnostic(
        Codes.W102_MISSING_SOURCE_COLUMN,
        f"Column '{column}' used by {used_by} is not declared on source '{source}'",
        f"Declare '{column}' in the columns of source '{source}', or fix the name.",
        location,
    )


def _source_columns_read(project: Project, model: Model, location: str | None) -> list[Diagnostic]:
    """W102 for columns the SQL reads that its sources do not declare (dsl.md §8).

    Only when every dependency is a source that declares columns: with a model dependency (columns
    possibly unknown) or an undeclaring source, a name could legitimately come from there.
    """
    if not model.rendered_sql or not model.dependencies:
        return []
    sources = [project.source(ref.name) if ref.kind == "source" else None for ref in model.dependencies]
    if any(source is None or not source.columns for source in sources):
        return []
    declared = {c.name.lower() for source in sources if source for c in source.columns} | WINDOW_COLUMNS
    read = referenced_columns(model.rendered_sql, tuple(source.topic for source in sources if source))
    if read is None:
        return []
    names = " or ".join(f"'{s.name}'" for s in sources if s)
    return [
        Diagnostic(
            Codes.W102_MISSING_SOURCE_COLUMN,
            f"Column '{column}' used by model '{model.name}' is not declared on source {names}",
            f"Declare '{column}' in the source's columns, or fix the name in the SQL.",
            location,
        )
        for column in sorted(read - declared)
    ]


def _model_checks(project: Project, model: Model, outputs: OutputColumns, location: str | None) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if model.contract is not None and model.contract.columns:
        produced = outputs.of(model.name, "model") if not model.columns else _from_sql(model, outputs)
        if produced is not None:
            for column in model.contract.columns:
                problem = _column_problem(column, produced)
                if problem is None:
                    continue
                enforced = model.contract.enforced
                code = Codes.E302_CONTRACT_VIOLATION if enforced else Codes.W301_COLUMN_TYPE_MISMATCH
                out.append(
                    Diagnostic(
                        code,
                        f"Contract of model '{model.name}': {problem}",
                        "Align the contract with the model's SQL output.",
                        location,
                    )
                )
    return out


def _from_sql(model: Model, outputs: OutputColumns) -> dict[str, str | None] | None:
    bare = Model(name=model.name, rendered_sql=model.rendered_sql, dependencies=model.dependencies)
    return outputs._model(bare, 0)


def _column_problem(column: Column, produced: dict[str, str | None]) -> str | None:
    if column.name not in produced:
        return f"column '{column.name}' is not produced"
    wanted, actual = type_family(column.type), type_family(produced[column.name])
    if wanted and actual and wanted != actual:
        return f"column '{column.name}' is {produced[column.name]}, declared {column.type}"
    return None


def _exposure_columns(
    exposure: str, ref: ExposureRef, outputs: OutputColumns, location: str | None
) -> list[Diagnostic]:
    if not ref.columns:
        return []
    produced = outputs.of(ref.name, ref.kind)
    if produced is None:
        return []
    out: list[Diagnostic] = []
    for column in ref.columns:
        if column.name not in produced:
            if ref.kind == "source":
                out.append(_missing_source_column(ref.name, column.name, f"exposure '{exposure}'", location))
            else:
                out.append(
                    Diagnostic(
                        Codes.W103_MISSING_REF_COLUMN,
                        f"Exposure '{exposure}' needs column '{column.name}', "
                        f"which model '{ref.name}' does not produce",
                        "Fix the column name or add it to the model's SELECT.",
                        location,
                    )
                )
            continue
        problem = _column_problem(column, produced)
        if problem is not None:
            out.append(
                Diagnostic(
                    Codes.W301_COLUMN_TYPE_MISMATCH,
                    f"Exposure '{exposure}' on '{ref.name}': {problem}",
                    "Align the declared type with the producer's column type.",
                    location,
                )
            )
    return out


def _model_notices(model: Model, has_gateway: bool) -> list[Notice]:
    notices: list[Notice] = []
    if model.security and model.security.policies and model.materialized != "virtual_topic" and not has_gateway:
        notices.append(
            Notice(
                code="SECURITY_POLICIES_NOT_ENFORCED",
                message=f"Model '{model.name}': no Gateway, so masking is applied in the generated SQL/transforms",
                subject=model.name,
            )
        )
    if model.sql and model.from_:
        made = {(d.kind, d.name) for d in model.dependencies}
        for ref in model.from_:
            if (ref.kind, ref.name) not in made:
                code = "UNUSED_FROM_SOURCE" if ref.kind == "source" else "UNUSED_FROM_REF"
                message = f"Model '{model.name}' declares from '{ref.name}' but its SQL does not use it"
                notices.append(Notice(code=code, message=message, subject=model.name))
    return notices


def _test_notices(test: Any, known_assertions: set[str]) -> list[Notice]:
    notices: list[Notice] = []
    if test.sample_size is not None and test.type != "sample":
        message = f"Test '{test.name}': sample_size only applies to sample tests"
        notices.append(Notice(code="SAMPLE_SIZE_IGNORED", message=message, subject=test.name))
    for assertion in test.assertions:
        for kind in assertion if isinstance(assertion, dict) else ():
            if kind not in known_assertions:
                message = f"Test '{test.name}': unknown assertion '{kind}' will be skipped"
                notices.append(Notice(code="UNKNOWN_ASSERTION", message=message, subject=test.name))
    return notices
