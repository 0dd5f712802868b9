"""Which plugin capabilities a project's models need, and which of them no installed plugin provides."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from streamt import kinds
from streamt.errors import Codes, Diagnostic


def _required_capabilities(declaration: Any) -> list[str]:
    """The materialization and executor a model needs a plugin for."""
    materialized = getattr(declaration, "materialized", None)
    if materialized is None or not hasattr(declaration, "executor"):
        return []
    needed = [materialized]
    if materialized == "topic" and declaration.sql:
        needed.append(declaration.executor)
    return needed


def capability_problems(plugins: Any, walk: list[Any]) -> list[Diagnostic]:
    """``E903``/``E904``/``E906`` for each materialization or executor ``walk``'s models need and no
    installed plugin implements (compile refuses them; validate reports them as findings)."""
    # One precedence rule (streamt.kinds): an implemented declaration wins over a
    # placeholder of the same name; two implementations of one name are E906.
    declared = kinds.materializations(plugins)
    users: dict[str, list[str]] = defaultdict(list)
    for declaration in walk:
        for capability in _required_capabilities(declaration):
            users[capability].append(declaration.name)
    problems = []
    for capability in sorted(users):
        names = ", ".join(sorted(users[capability]))
        found = declared.get(capability)
        if capability in declared.conflicts:
            problems.append(kinds.conflict_diagnostic(declared.family, capability, declared.conflicts[capability]))
        elif found is None:
            problems.append(
                Diagnostic(
                    Codes.E903_PLUGIN_REQUIRED,
                    f"No installed plugin compiles '{capability}' (needed by: {names}).",
                    kinds.install_hint(capability, plugins),
                    details={"capability": capability},
                )
            )
        elif not found.implemented:
            problems.append(
                Diagnostic(
                    Codes.E904_NOT_IMPLEMENTED,
                    f"The '{capability}' compiler is not implemented in this release (needed by: {names}).",
                    "Upgrade the plugin that provides it when a release implements it.",
                    details={"capability": capability},
                )
            )
    return problems
