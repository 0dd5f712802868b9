"""Semantic validation of a loaded project: ``validate_project(project) -> Report``.

Each check module has one concern and returns diagnostics; this module runs them in a fixed order
(so output is deterministic) and adds what plugins report through ``streamt_validate``: a plugin may
return ``Diagnostic`` items (errors/warnings) and ``Notice`` items (upstream-only advice that never
fails ``--strict``); both are collected.
"""

from __future__ import annotations

from typing import Any

import attrs

from streamt import kinds
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.project import sections as plugin_sections
from streamt.project.model import Notice, Project
from streamt.untrusted import exception_name
from streamt.validation.enums import open_kinds
from streamt.values import replace


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
    from streamt.validation import columns, enums, fields, governance, names, references

    found: list[Diagnostic] = list(project.diagnostics)
    notices: list[Notice] = list(project.notices)
    found += enums.check(project)
    found += fields.check(project)
    found += references.check(project)
    found += names.check(project)
    # What declarations need of the plugins' runtime sections (E201, E202, E205 ...), then the
    # written sections' own values: each asked of the section's owner, in core's fixed order.
    found += plugin_sections.requirements(project)
    found += plugin_sections.check(project, "runtime")
    gov = governance.check(project)
    found += gov.diagnostics
    col_diagnostics, col_notices = columns.check(project)
    found += col_diagnostics
    notices += col_notices
    if plugins:
        plugin_diagnostics, plugin_notices = _plugin_findings(project)
        found += plugin_diagnostics
        notices += _new_notices(notices, plugin_notices)
    unique = _positioned(_deduplicate(found))
    return Report(
        errors=tuple(d for d in unique if not d.is_warning),
        warnings=tuple(d for d in unique if d.is_warning),
        notices=tuple(dict.fromkeys(notices)),  # Notice holds only strings: hashable
        governance=gov.summary,
    )


def _positioned(found: list[Diagnostic]) -> list[Diagnostic]:
    """``file`` -> ``file:line:col`` for findings located through ``project.locations`` (core or plugin).

    Only files that have a finding are parsed again, once each; a clean project parses nothing.
    """
    from streamt.project.yaml_io import Locator, SourcePosition

    locator: Locator | None = None
    out: list[Diagnostic] = []
    for diagnostic in found:
        if isinstance(diagnostic.location, SourcePosition):
            locator = locator or Locator()
            diagnostic = replace(diagnostic, location=locator(diagnostic.location))
        out.append(diagnostic)
    return out


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


def _plugin_findings(project: Project) -> tuple[list[Diagnostic], list[Notice]]:
    from streamt.compile.engine import capability_problems
    from streamt.plugins import get_plugins

    plugins = get_plugins()
    # A materialization no installed plugin compiles is E903 now, not only at compile; one that no
    # plugin or extra even names is already E501 (validation.enums) and is not reported twice.
    named = open_kinds(plugins)[kinds.MATERIALIZATION]
    walk = [m for m in project.models if m.declared_materialized is None or m.declared_materialized in named]
    diagnostics: list[Diagnostic] = capability_problems(project, plugins, walk)
    notices: list[Notice] = []
    for result in _each_plugin(plugins, project, diagnostics):
        for item in result or ():
            if isinstance(item, Diagnostic):
                diagnostics.append(item)
            elif isinstance(item, Notice):
                notices.append(item)
    return diagnostics, notices


def _each_plugin(plugins: Any, project: Project, problems: list[Diagnostic]) -> list[Any]:
    """Every plugin's ``streamt_validate`` answer, in pluggy's order; one that raises is its own finding.

    A raising hook is reported as that plugin's diagnostic (its ``StreamtError``
    diagnostics, else ``E999`` naming it and the exception class, never its
    message), and the other plugins' findings still appear.
    """
    answers: list[Any] = []
    arguments = {"project": project, "env": project.env}
    for impl in reversed(plugins.manager.hook.streamt_validate.get_hookimpls()):
        try:
            answers.append(impl.function(*(arguments[name] for name in impl.argnames)))
        except StreamtError as exc:
            problems.extend(exc.diagnostics)
        except Exception as exc:
            problems.append(
                Diagnostic(
                    Codes.E999_INTERNAL_ERROR,
                    f"Plugin '{impl.plugin_name}' failed validating the project ({exception_name(exc)}).",
                    f"Report it to the maintainers of '{impl.plugin_name}'; the other findings are complete.",
                    details={"plugin": impl.plugin_name},
                )
            )
    return answers


def _new_notices(core: list[Notice], from_plugins: list[Notice]) -> list[Notice]:
    # Core and a plugin may both notice the same thing about the same subject (e.g. a very short
    # state TTL) in different words; the core notice is kept and the plugin's repeat dropped.
    known = {(n.code, n.subject) for n in core}
    return [n for n in from_plugins if (n.code, n.subject) not in known]
