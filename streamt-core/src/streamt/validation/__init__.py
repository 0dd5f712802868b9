"""Semantic validation of a loaded project: ``validate_project(project) -> Report``.

Each check module has one concern and returns diagnostics; this module runs them in a fixed order
(so output is deterministic) and adds what plugins report through ``streamt_validate``.
"""

from __future__ import annotations

import attrs

from streamt.errors import Diagnostic
from streamt.project.model import Notice, Project


@attrs.frozen
class Report:
    errors: tuple[Diagnostic, ...]
    warnings: tuple[Diagnostic, ...]
    notices: tuple[Notice, ...]
    governance: tuple[tuple[str, str], ...] = ()  # (status ok|warn|fail, summary line) for text output

    @property
    def ok(self) -> bool:
        return not self.errors


def validate_project(project: Project, *, plugins: bool = True) -> Report:
    from streamt.validation import columns, enums, governance, references, runtime_requirements

    found: list[Diagnostic] = list(project.diagnostics)
    notices: list[Notice] = list(project.notices)
    found += enums.check(project)
    found += references.check(project)
    found += runtime_requirements.check(project)
    gov = governance.check(project)
    found += gov.diagnostics
    col_diagnostics, col_notices = columns.check(project)
    found += col_diagnostics
    notices += col_notices
    if plugins:
        found += _plugin_diagnostics(project)
    unique = _deduplicate(found)
    return Report(
        errors=tuple(d for d in unique if not d.is_warning),
        warnings=tuple(d for d in unique if d.is_warning),
        notices=tuple(dict.fromkeys(notices)),  # Notice holds only strings: hashable
        governance=gov.summary,
    )


def _deduplicate(found: list[Diagnostic]) -> list[Diagnostic]:
    # The same finding can come from a load stage and a check (or core and a plugin); report it once.
    seen: set[tuple[str, str, str | None]] = set()
    out: list[Diagnostic] = []
    for diagnostic in found:
        key = (diagnostic.code.code, diagnostic.message, diagnostic.location)
        if key not in seen:
            seen.add(key)
            out.append(diagnostic)
    return out


def _plugin_diagnostics(project: Project) -> list[Diagnostic]:
    from streamt.plugins import get_plugins

    out: list[Diagnostic] = []
    for result in get_plugins().hook.streamt_validate(project=project, env=project.env):
        for item in result or ():
            if isinstance(item, Diagnostic):
                out.append(item)
    return out
