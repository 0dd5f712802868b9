"""The compile walk: every declaration, in DAG order, through the plugins that compile it.

Core knows no materialization and no artifact kind. It checks that some installed plugin declares
each materialization and executor a project uses, sends each declaration to the
``streamt_compile`` of the plugins that registered a kind it produces (``streamt.artifact_kinds``),
adds the removal artifacts of ``lifecycle`` tombstones (each list compiled by the plugin that
registered its key), refuses collisions and returns one ordered, immutable ``CompiledProject``.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import attrs

from streamt import kinds
from streamt.artifact_kinds import MATERIALIZATION_USES, ArtifactKinds, artifact_kinds, uses
from streamt.artifacts import Artifact
from streamt.compile.order import artifact_order, declaration_order
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.project.lifecycle import tombstone_artifacts
from streamt.untrusted import exception_name


@attrs.frozen
class CompiledProject:
    """The artifacts of one project in one environment, dependencies first.

    * ``project_name``, ``project_version``, ``project_description`` — from ``project:``.
    * ``environment`` — the environment compiled for.
    * ``artifacts`` — every ``Artifact``, dependencies first; ``of_kind(kind)`` and
      ``find(kind, identity)`` look them up.
    * ``artifact_kinds`` — the registry of kinds it was compiled with (where its files go);
      ``None``: the installed plugins'.
    """

    project_name: str
    project_version: str
    project_description: str | None
    environment: str
    artifacts: tuple[Artifact, ...]
    artifact_kinds: ArtifactKinds | None = attrs.field(default=None, eq=False, repr=False)

    def of_kind(self, kind: str) -> tuple[Artifact, ...]:
        """The artifacts of one kind, in compile order."""
        return tuple(a for a in self.artifacts if a.kind == kind)

    def find(self, kind: str, identity: str) -> Artifact | None:
        """The artifact of ``kind`` with ``identity``, or ``None``."""
        return next((a for a in self.artifacts if a.kind == kind and a.identity == identity), None)


def compile_project(project: Any, plugins: Any = None, declarations: list[Any] | None = None) -> CompiledProject:
    """Compile ``project`` (a loaded, validated ``streamt.project.Project``).

    ``declarations`` limits the walk (``compiled_view`` compiles one model);
    by default every source, model and test is compiled. Raises
    ``StreamtError`` carrying every problem found, not just the first.
    """
    if plugins is None:
        from streamt.plugins import get_plugins

        plugins = get_plugins()
    walk = declaration_order(project) if declarations is None else declarations
    registry = artifact_kinds(plugins)
    problems = capability_problems(project, plugins, walk) + registry.conflicts(walk)
    if problems:
        raise StreamtError.from_diagnostics(problems)
    artifacts: list[Artifact] = []
    impls = list(reversed(plugins.manager.hook.streamt_compile.get_hookimpls()))
    kwargs = {"project": project, "env": project.env}
    for declaration in walk:
        kwargs["declaration"] = declaration
        compilers = registry.compilers(declaration)
        for impl in impls:
            if impl.plugin_name in compilers:
                artifacts.extend(_call(impl, kwargs, declaration, problems))
    if declarations is None:
        tombstones, missing = tombstone_artifacts(project, plugins)
        artifacts.extend(tombstones)
        problems.extend(missing)
    problems.extend(_collisions(artifacts))
    if problems:
        raise StreamtError.from_diagnostics(problems)
    return CompiledProject(
        project_name=project.name,
        project_version=project.info.version,
        project_description=project.info.description,
        environment=project.env,
        artifacts=tuple(artifact_order(artifacts, registry)),
        artifact_kinds=registry,
    )


def _call(impl: Any, kwargs: dict[str, Any], declaration: Any, problems: list[Diagnostic]) -> list[Artifact]:
    try:
        returned = impl.function(*(kwargs[arg] for arg in impl.argnames)) or []
    except StreamtError as exc:
        problems.extend(exc.diagnostics)
        return []
    except Exception as exc:  # a provider bug fails the compile, naming the provider, never a traceback
        problems.append(
            Diagnostic(
                Codes.E999_INTERNAL_ERROR,
                f"Plugin '{impl.plugin_name}' failed compiling '{declaration.name}' ({exception_name(exc)}).",
                f"Report it to the maintainers of '{impl.plugin_name}'.",
                details={"plugin": impl.plugin_name},
            )
        )
        return []
    good = [a for a in returned if isinstance(a, Artifact)]
    if len(good) != len(returned):
        problems.append(
            Diagnostic(
                Codes.E999_INTERNAL_ERROR,
                f"Plugin '{impl.plugin_name}' returned something other than Artifact for '{declaration.name}'.",
                f"Report it to the maintainers of '{impl.plugin_name}'.",
                details={"plugin": impl.plugin_name},
            )
        )
    return good


def _required_capabilities(declaration: Any) -> list[str]:
    """The materialization and executor a model needs a plugin for."""
    return [name for what, name in uses(declaration) if what in MATERIALIZATION_USES]


def capability_problems(project: Any, plugins: Any, walk: list[Any]) -> list[Diagnostic]:
    """``E903``/``E904``/``E906`` for what ``walk``'s models need and no installed plugin implements:
    compile refuses them, validate reports them as findings (``streamt.validation``)."""
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


def _collisions(artifacts: list[Artifact]) -> list[Diagnostic]:
    seen: dict[tuple[str, str], Artifact] = {}
    problems = []
    for artifact in artifacts:
        first = seen.setdefault(artifact.sort_key, artifact)
        if first is not artifact:
            problems.append(
                Diagnostic(
                    Codes.E111_NAME_COLLISION,
                    f"Two declarations compile to the same {artifact.kind} '{artifact.identity}': "
                    f"'{first.name}' and '{artifact.name}'.",
                    "Give one of them another physical name (for example advanced.topic.name).",
                    details={"kind": artifact.kind, "identity": artifact.identity},
                )
            )
    return problems
