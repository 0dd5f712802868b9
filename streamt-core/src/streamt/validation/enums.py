"""Value sets of dsl.md (materialization, ownership, test and exposure types, ...) -> E501.

Materializations, executors, test types and state backends are open kinds
(``streamt.kinds``): valid when an installed plugin provides them or the
known-kinds catalog names them (then a missing plugin is reported, with the
extra to install, by the command that needs it).
"""

from __future__ import annotations

import re

from streamt import kinds
from streamt.errors import Codes, Diagnostic
from streamt.plugins import Plugins, get_plugins
from streamt.project.model import (
    CLASSIFICATIONS,
    EXPOSURE_TYPES,
    OWNERSHIP_MODES,
    Column,
    Project,
)

_MASK_METHODS = ("hash", "redact", "partial", "tokenize", "null")


def _bad(where: str, what: str, value: object, valid: tuple[str, ...], location: str | None) -> Diagnostic:
    return Diagnostic(
        Codes.E501_PARSE_ERROR,
        f"Invalid {what} '{value}' in {where}. Valid: {', '.join(valid)}",
        f"Use one of: {', '.join(valid)}.",
        location,
    )


def open_kinds(plugins: Plugins) -> dict[str, tuple[str, ...]]:
    """The valid values of each open family, known ones first (in catalog order)."""
    provided = kinds.materializations(plugins)
    executors = set(kinds.known(plugins, kinds.EXECUTOR))
    declared_executors = {name for name, m in provided.items() if m.role == kinds.EXECUTOR}
    return {
        kinds.MATERIALIZATION: kinds.valid_values(
            kinds.MATERIALIZATION, set(provided) - executors - declared_executors, plugins
        ),
        kinds.EXECUTOR: kinds.valid_values(kinds.EXECUTOR, declared_executors, plugins),
        kinds.TEST_TYPE: kinds.valid_values(kinds.TEST_TYPE, kinds.test_types(plugins), plugins),
        kinds.STATE_BACKEND: kinds.valid_values(kinds.STATE_BACKEND, kinds.state_backends(plugins), plugins),
    }


def check(project: Project, plugins: Plugins | None = None) -> list[Diagnostic]:
    valid = open_kinds(plugins or get_plugins())
    materializations = valid[kinds.MATERIALIZATION]
    executors = valid[kinds.EXECUTOR]
    backends = valid[kinds.STATE_BACKEND]
    test_types = valid[kinds.TEST_TYPE]
    out: list[Diagnostic] = []
    loc = project.locations.get
    for source in project.sources:
        where = f"source '{source.name}'"
        if source.ownership.mode not in OWNERSHIP_MODES:
            out.append(
                _bad(where, "ownership mode", source.ownership.mode, OWNERSHIP_MODES, loc(("source", source.name)))
            )
        out += _columns(where, source.columns, loc(("source", source.name)))
    for model in project.models:
        where = f"model '{model.name}'"
        location = loc(("model", model.name))
        if model.declared_materialized is not None and model.declared_materialized not in materializations:
            out.append(
                Diagnostic(
                    Codes.E501_PARSE_ERROR,
                    f"Invalid materialized type '{model.declared_materialized}' in {where}. "
                    f"Valid: {', '.join(materializations)}",
                    did_you(model.declared_materialized, materializations),
                    location,
                )
            )
        if model.ownership.mode not in OWNERSHIP_MODES:
            out.append(_bad(where, "ownership mode", model.ownership.mode, OWNERSHIP_MODES, location))
        if model.executor not in executors:
            out.append(_bad(where, "executor", model.executor, executors, location))
        if model.access not in ("private", "protected", "public"):
            out.append(_bad(where, "access", model.access, ("private", "protected", "public"), location))
        out += _columns(where, model.columns, location)
        for policy in model.security.policies if model.security else ():
            if policy.kind == "mask" and policy.method not in _MASK_METHODS:
                out.append(_bad(where, "mask method", policy.method, _MASK_METHODS, location))
        if (
            model.sql is not None
            and model.rendered_sql is not None
            and not re.search(r"\bFROM\b", model.rendered_sql, re.IGNORECASE)
        ):
            out.append(
                Diagnostic(
                    Codes.E501_PARSE_ERROR,
                    f"SQL of model '{model.name}' has no FROM clause",
                    "Read from {{ source('x') }} or {{ ref('x') }}.",
                    location,
                )
            )
    for test in project.tests:
        if test.type not in test_types:
            out.append(_bad(f"test '{test.name}'", "test type", test.type, test_types, loc(("test", test.name))))
    for exposure in project.exposures:
        if exposure.type not in EXPOSURE_TYPES:
            where = f"exposure '{exposure.name}'"
            out.append(_bad(where, "exposure type", exposure.type, EXPOSURE_TYPES, loc(("exposure", exposure.name))))
    state = project.deployment_state
    if state.backend not in backends:
        out.append(_bad("deployment_state", "backend", state.backend, backends, None))
    return out


def _columns(where: str, columns: tuple[Column, ...], location: str | None) -> list[Diagnostic]:
    return [
        _bad(f"{where} column '{c.name}'", "classification", c.classification, CLASSIFICATIONS, location)
        for c in columns
        if c.classification is not None and c.classification not in CLASSIFICATIONS
    ]


def did_you(value: str, valid: tuple[str, ...]) -> str:
    return kinds.unknown_suggestion(value, valid)
