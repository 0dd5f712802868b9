"""Configuration sections that plugins own (``streamt_config_sections``): who claims what, and their keys.

Core owns ``runtime.kafka``, ``runtime.schema_registry``, the core keys of ``deployment_state``
and the core keys of a model or a source (``schema.MODEL``, ``schema.SOURCE``). Every other
section of those blocks is a plugin's (``runtime.connect``, ``runtime.flink`` ...; ``model.flink``,
``model.sink`` ... for a model, written at its top level or under ``advanced``): the loader checks
its keys and structures it through the owner's ``ConfigSection`` and keeps the value in
``sections``, opaque to core; ``validate`` runs the owner's ``check_declaration`` for every
declaration and its ``check``. A section nobody claims is kept as written (read-only). A known one
(the catalog's ``config_section`` family) is valid, as a known kind is: what needs its plugin (a
``flink`` model's compiler, a ``postgres`` backend) fails with ``E903`` and the extra to install.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from streamt import kinds
from streamt.capabilities import CONFIG_SECTION, MATERIALIZATION, ConfigSection, KnownKind
from streamt.errors import Codes, Diagnostic
from streamt.plugins import Plugins, get_plugins
from streamt.project.schema import ANY, MapOf
from streamt.untrusted import exception_name

BLOCKS = ("runtime", "deployment_state")
MODEL = "model"  # a model's own sections: ``models[].<name>`` and ``models[].advanced.<name>``
SOURCE = "source"  # a source's own sections: ``sources[].<name>``
# Shorthands of dsl.md §19 that name a part of another section: `runtime.gateway` is
# `runtime.conduktor.gateway`. The loader folds them (``normalize.runtime``) before structuring.
SHORTHANDS: dict[str, tuple[str, str]] = {"runtime.gateway": ("runtime.conduktor", "gateway")}


@attrs.frozen
class Registry:
    """The sections installed plugins claim, the ones the catalog knows of, and conflicts."""

    claimed: Mapping[str, ConfigSection]
    providers: Mapping[str, str]  # path -> plugin name
    known: Mapping[str, KnownKind]
    conflicts: Mapping[str, tuple[str, ...]]
    known_materializations: Mapping[str, KnownKind]  # the catalog's, for sections without their plugin

    def owns(self, path: str) -> bool:
        """Whether ``path`` is a plugin's section (claimed, known or conflicted), not core's."""
        return path in self.claimed or path in self.known or path in self.conflicts

    def names(self, block: str) -> tuple[str, ...]:
        """The section names of ``block`` that are not core's."""
        prefix = block + "."
        paths = {*self.claimed, *self.known, *self.conflicts}
        return tuple(sorted(p[len(prefix) :] for p in paths if p.startswith(prefix)))

    def not_interpolated(self) -> frozenset[tuple[str, str]]:
        """``(block, name)`` of sections whose values are variable names, kept as written."""
        return frozenset(tuple(p.split(".", 1)) for p, s in self.claimed.items() if not s.interpolate)  # type: ignore[misc]

    def model_sections(self) -> dict[str, ConfigSection | None]:
        """``name -> ConfigSection`` of a model's plugin sections (``None``: known, its plugin missing)."""
        return self.declaration_sections(MODEL)

    def declaration_sections(self, block: str) -> dict[str, ConfigSection | None]:
        """``name -> ConfigSection`` of the plugin sections of a ``model`` or a ``source``."""
        return {name: self.claimed.get(f"{block}.{name}") for name in self.names(block)}

    def verbatim(self) -> dict[str, tuple[str, ...] | None]:
        """``name -> keys`` of model sections whose values keep ``${...}`` as written (``None``: all of them)."""
        out: dict[str, tuple[str, ...] | None] = {}
        for name, section in self.model_sections().items():
            if section is not None and not section.interpolate:
                out[name] = None
            elif section is not None and section.verbatim:
                out[name] = section.verbatim
        return out


def registry(plugins: Plugins | None = None) -> Registry:
    plugins = plugins or get_plugins()
    table = kinds.config_sections(plugins)
    return Registry(
        claimed=dict(table),
        providers=dict(table.providers),
        known=kinds.known(plugins, CONFIG_SECTION),
        conflicts=dict(table.conflicts),
        known_materializations=kinds.known(plugins, MATERIALIZATION),
    )


def accepted_keys(node: dict[str, Any], sections: Registry) -> dict[str, Any]:
    """``node`` (a file's schema) with each plugin section's keys under its block.

    A claimed section accepts its owner's keys; a known or conflicted one any keys (its plugin
    is missing, which ``validate`` reports as such, not as unknown keys).
    """
    out = dict(node)
    if isinstance(out.get("models"), list):
        out["models"] = [_with_model_sections(out["models"][0], sections)]
    if isinstance(out.get("sources"), list):
        grafted = {n: schema_node(s.keys) if s else ANY for n, s in sections.declaration_sections(SOURCE).items()}
        out["sources"] = [{**out["sources"][0], **grafted}]
    defaults = out.get("defaults")
    if isinstance(defaults, dict) and isinstance(defaults.get("models"), dict):
        out["defaults"] = {**defaults, "models": _with_model_sections(defaults["models"], sections, defaults=True)}
    for block in BLOCKS:
        if not isinstance(out.get(block), dict):
            continue
        block_node = dict(out[block])
        for name in sections.names(block):
            section = sections.claimed.get(f"{block}.{name}")
            block_node[name] = schema_node(section.keys) if section is not None else ANY
        out[block] = block_node
    for shorthand, (target, part) in SHORTHANDS.items():
        block, name = shorthand.split(".", 1)
        holder = out.get(block)
        if not isinstance(holder, dict) or not sections.owns(target):
            continue
        target_node = holder.get(target.split(".", 1)[1])
        holder[name] = target_node.get(part, ANY) if isinstance(target_node, dict) else ANY
    return out


def shown(model: Any, sections: Registry) -> dict[str, Any]:
    """``name -> value as data`` of the model sections ``show model`` lists (``ConfigSection.shown``).

    A section the model does not write is ``None``; the caller decides how to show it.
    """
    out: dict[str, Any] = {}
    for name, section in sections.model_sections().items():
        if section is None or not section.shown:
            continue
        value = model.section(name)
        out[name] = attrs.asdict(value) if attrs.has(type(value)) else value
    return out


def _with_model_sections(node: dict[str, Any], sections: Registry, defaults: bool = False) -> dict[str, Any]:
    """A model's key tree (or ``defaults.models``) with each plugin section's keys, under ``advanced`` too."""
    grafted = {
        name: schema_node(section.keys) if section is not None else ANY
        for name, section in sections.model_sections().items()
        if not defaults or section is None or section.defaults
    }
    out = {**node, **grafted}
    if isinstance(node.get("advanced"), dict):
        out["advanced"] = {**node["advanced"], **grafted}
    return out


def schema_node(keys: Any) -> Any:
    if not isinstance(keys, Mapping):
        return ANY
    if set(keys) == {"*"}:
        return MapOf(schema_node(keys["*"]))
    return {str(key): schema_node(value) for key, value in keys.items()}


def check(project: Any, block: str, sections: Registry | None = None) -> list[Diagnostic]:
    """Each written section of ``block`` checked by its owner (``ConfigSection.check``); ``E906`` when two claim it.

    ``validate`` checks each block's plugin sections where it checks that block's core values:
    ``deployment_state`` with the field values, ``runtime`` with the runtime requirements.
    """
    sections = sections or registry()
    out: list[Diagnostic] = []
    holder = project.runtime if block == "runtime" else project.deployment_state
    for name, value in holder.sections.items():
        path = f"{block}.{name}"
        section = sections.claimed.get(path)
        if section is None and path in sections.conflicts:
            out.append(kinds.conflict_diagnostic(CONFIG_SECTION, path, sections.conflicts[path]))
        elif section is not None and section.check is not None:
            out += _checked(section, value, project, sections.providers[path])
    return out


def requirements(project: Any, sections: Registry | None = None) -> list[Diagnostic]:
    """What each model, then each test, needs of the claimed ``runtime`` sections (``check_declaration``).

    Sections answer in path order for each declaration, so one declaration's findings stay
    together and the output order does not depend on the order plugins were installed in.
    """
    sections = sections or registry()
    owners = [
        (section, sections.providers[path])
        for path, section in sorted(sections.claimed.items())
        if section.block == "runtime" and section.check_declaration is not None
    ]
    out: list[Diagnostic] = []
    failed: set[str] = set()  # a plugin whose check raised is reported once, not once per declaration
    for declaration in (*project.models, *project.tests):
        for section, plugin in owners:
            if section.path in failed:
                continue
            try:
                out += section.check_declaration(declaration, project) or ()  # type: ignore[misc]
            except Exception as exc:
                failed.add(section.path)
                out.append(_plugin_failed(section, plugin, exc))
    return out


def _checked(section: ConfigSection, value: Any, project: Any, plugin: str) -> list[Diagnostic]:
    assert section.check is not None
    try:
        return list(section.check(value, project) or ())
    except Exception as exc:  # one plugin's bug is its own finding; the other findings still appear
        return [_plugin_failed(section, plugin, exc)]


def _plugin_failed(section: ConfigSection, plugin: str, exc: Exception) -> Diagnostic:
    return Diagnostic(
        Codes.E999_INTERNAL_ERROR,
        f"Plugin '{plugin}' failed checking {section.path} ({exception_name(exc)}).",
        f"Report it to the maintainers of '{plugin}'; the other findings are complete.",
        details={"plugin": plugin},
    )


def enabled(block_sections: Mapping[str, Any], sections: Registry) -> tuple[str, ...]:
    """The materializations whose runtime the written ``runtime`` sections configure.

    A claimed section answers itself (``ConfigSection.enables``). A known section whose plugin is
    missing is taken to configure the known materializations of the same extra (``runtime.flink``
    and ``flink``): so ``validate`` does not also say "runtime.flink is not configured" to a project
    that configures it, and the command that compiles the model names the extra to install.
    """
    out: list[str] = []
    for name, value in block_sections.items():
        path = f"runtime.{name}"
        section = sections.claimed.get(path)
        if section is not None:
            found = _enabled_by(section, value)
        elif path in sections.known:
            extra = sections.known[path].extra
            found = tuple(m for m, kind in sections.known_materializations.items() if kind.extra == extra)
        else:
            found = ()
        out += [m for m in found if m not in out]
    return tuple(out)


def _enabled_by(section: ConfigSection, value: Any) -> tuple[str, ...]:
    if section.enables is None:
        return ()
    try:
        return tuple(section.enables(value))
    except Exception:  # a plugin bug must not be a traceback while loading; its own checks still run
        return ()
