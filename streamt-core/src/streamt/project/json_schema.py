"""JSON Schemas (2020-12) of the project file, the environment files and the declaration files, for editors.

Built from what the loader itself uses, so the two cannot drift: the accepted keys are the key
trees of ``streamt.project.schema`` with every installed plugin's ``ConfigSection`` keys grafted in
(``sections.accepted_keys``, as the loader does); the types and defaults of scalar keys are the
fields of the ``attrs`` classes the loader structures into (a plugin section's ``model`` included);
descriptions are those classes' docstring bullets; enumerations and patterns are the value sets
``validate`` checks against. Like the loader's key check, a map node constrains a value only when it
is a map (``properties`` apply to objects only), so a shorthand (``virtual_topic: true``) passes.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping
from typing import Any

import attrs

from streamt import kinds
from streamt.json_output import to_json_text
from streamt.plugins import Plugins, get_plugins
from streamt.project import lifecycle, normalize
from streamt.project import model as m
from streamt.project import schema as keys
from streamt.project import sections as plugin_sections
from streamt.project.interpolation import PLACEHOLDER_PATTERN
from streamt.project.loader import API_VERSION, DECLARATION_DIRS, PROJECT_FILES
from streamt.validation.enums import open_kinds

DIALECT = "https://json-schema.org/draft/2020-12/schema"
FILES = ("project", "environment", "declarations")
_TITLES = {
    "project": "streamt project file (stream_project.yml)",
    "environment": "streamt environment file (environments/<name>.yml)",
    "declarations": "streamt declaration file (sources/, models/, tests/, exposures/)",
}

# The block each top-level key of a file is structured into (loader._build).
_ROOTS: dict[str, type[Any]] = {
    "project": m.ProjectInfo,
    "runtime": m.Runtime,
    "defaults": m.Defaults,
    "rules": m.Rules,
    "governance": m.Rules,
    "safety": m.Safety,
    "deployment_state": m.DeploymentState,
    "lifecycle": m.Lifecycle,
    "environment": m.Environment,
    "sources": m.Source,
    "models": m.Model,
    "tests": m.Test,
    "exposures": m.Exposure,
}
# ``advanced`` repeats a model's blocks (dsl.md §9.3): the same fields as the model's own.
_SAME_AS_PARENT = "advanced"
# The ``attrs`` metadata key of a plugin section's field holding its value set: ``{"enum": [...]}``
# or ``{"pattern": "..."}`` (what the owner's ``check`` accepts), shown as the schema of that key.
VALUE_SET = "json_schema"
# ``a`` — x; ``b`` — y: one bullet describing two keys.
_SEGMENT = re.compile(r";\s+(?=``[^`]+``(?:, ``[^`]+``)* — )")


def file_schemas(plugins: Plugins | None = None) -> dict[str, dict[str, Any]]:
    """``{"project": ..., "environment": ..., "declarations": ...}``, each a complete schema document."""
    plugins = plugins or get_plugins()
    registry = plugin_sections.registry(plugins)
    removals = lifecycle.registry(plugins)
    trees = {
        "project": lifecycle.accepted_keys(plugin_sections.accepted_keys(keys.PROJECT_FILE, registry), removals),
        "environment": plugin_sections.accepted_keys(keys.ENVIRONMENT_FILE, registry),
        "declarations": plugin_sections.accepted_keys(keys.DECLARATIONS, registry),
    }
    builder = _Builder(registry, removals, _value_sets(plugins))
    out: dict[str, dict[str, Any]] = {}
    for name in FILES:
        body = builder.node(trees[name], None, None, ())
        out[name] = {"$schema": DIALECT, "title": _TITLES[name], **body}
    out["project"]["properties"]["apiVersion"] = {
        "description": f"{API_VERSION}: strict mode (an unknown key is an error); without it, legacy mode (a warning).",
        "enum": [API_VERSION, None],
    }
    return out


def _value_sets(plugins: Plugins) -> dict[tuple[type[Any], str], dict[str, Any]]:
    """``(class, field) -> {"enum": ...}`` or ``{"pattern": ...}``: the sets ``validate`` checks exactly.

    A plugin section's fields carry their own in ``attrs`` metadata (``VALUE_SET``).
    """
    open_values = open_kinds(plugins)
    return {
        (m.Ownership, "mode"): {"enum": list(m.OWNERSHIP_MODES)},
        (m.Column, "classification"): {"enum": list(m.CLASSIFICATIONS)},
        (m.Exposure, "type"): {"enum": list(m.EXPOSURE_TYPES)},
        (m.Model, "declared_materialized"): {"enum": list(open_values[kinds.MATERIALIZATION])},
        (m.Model, "executor"): {"enum": list(open_values[kinds.EXECUTOR])},
        (m.Test, "type"): {"enum": list(open_values[kinds.TEST_TYPE])},
        (m.DeploymentState, "backend"): {"enum": list(open_values[kinds.STATE_BACKEND])},
    }


class _Builder:
    def __init__(
        self,
        registry: plugin_sections.Registry,
        removals: lifecycle.Registry,
        value_sets: Mapping[tuple[type[Any], str], Any],
    ) -> None:
        self.registry = registry
        self.removals = removals
        self.value_sets = value_sets

    def node(self, tree: Any, cls: type[Any] | None, default: Any, path: tuple[str, ...]) -> dict[str, Any]:
        """The schema of one key-tree node; ``cls`` is the class it is structured into, when known."""
        if isinstance(tree, dict):
            return self._map(tree, cls, default, path)
        if isinstance(tree, list):
            return {"items": self.node(tree[0], cls, None, (*path, "[]"))}
        if isinstance(tree, keys.MapOf):
            return {"additionalProperties": self.node(tree.value, cls, None, (*path, "*"))}
        return {}

    def _map(self, tree: dict[str, Any], cls: type[Any] | None, default: Any, path: tuple[str, ...]) -> dict[str, Any]:
        fields = _fields(cls)
        notes = _descriptions(cls)
        properties: dict[str, Any] = {}
        for key in sorted(tree):
            name = normalize.RENAMED.get(key, key)
            field = fields.get(name)
            child_path = (*path, key)
            model_section = self._model_section(key, field, cls, path)
            if model_section is not None:
                properties[key] = self._model_section_node(tree[key], model_section, path)
                continue
            child_cls, child_default, plugin = self._child(key, field, cls, default, path)
            schema = self.node(tree[key], child_cls, child_default, child_path)
            if field is not None and tree[key] is keys.ANY and key not in normalize.FOLDED_KEYS:
                schema = {**self._leaf(cls, field, default), **schema}
            description = notes.get(key) or notes.get(name) or (_summary(child_cls) if tree[key] else None)
            if plugin is not None:
                owner = self.registry.providers.get(plugin, "")
                description = f"{description or 'Plugin section'} (plugin: {owner})" if owner else description
            if description:
                schema = {"description": description, **schema}
            properties[key] = schema
        return {"properties": properties, "additionalProperties": False}

    def _model_section(self, key: str, field: Any, cls: type[Any] | None, path: tuple[str, ...]) -> Any:
        """The claimed plugin section a model key (a ``defaults.models`` key, a source key) is, if it is one."""
        if field is not None or cls not in (m.Model, m.ModelDefaults, m.Source):
            return None
        block = plugin_sections.SOURCE if cls is m.Source else plugin_sections.MODEL
        return self.registry.claimed.get(f"{block}.{key}")

    def _model_section_node(self, tree: Any, section: Any, path: tuple[str, ...]) -> dict[str, Any]:
        """A model section's schema: its keys typed by its ``model``, described by its ``description``.

        Under ``defaults.models`` it is described by its class, as a core block is.
        """
        if attrs.has(section.model):
            schema = self.node(tree, section.model, None, (*path, section.name))
        else:
            json_type = _json_type(section.model | None)
            schema = {"type": json_type} if json_type is not None else {}
        in_defaults = path[-1:] == ("models",)
        description = _summary(section.model) if in_defaults else section.description
        return {"description": description, **schema} if description else schema

    def _child(
        self, key: str, field: Any, cls: type[Any] | None, default: Any, path: tuple[str, ...]
    ) -> tuple[type[Any] | None, Any, str | None]:
        """The class a key's value is structured into, its default instance, and the plugin section path."""
        if not path and key in _ROOTS:
            return _ROOTS[key], None, None
        if key == _SAME_AS_PARENT:
            return cls, default, None
        if field is None and path == (lifecycle.BLOCK,):
            removal = self.removals.claimed.get(key)
            return (removal.model if removal is not None else None), None, None
        if field is None:
            section_path = f"{path[-1]}.{key}" if len(path) == 1 and path[0] in plugin_sections.BLOCKS else None
            section = self.registry.claimed.get(section_path) if section_path else None
            if section is not None:
                return section.model, None, section_path
            return None, None, section_path if section_path and self.registry.owns(section_path) else None
        inner = _attrs_class(field.type)
        instance = getattr(default, field.name, None) if default is not None else None
        if instance is None and attrs.has(type(field.default)):
            instance = field.default
        return inner, instance if attrs.has(type(instance)) else None, None

    def _leaf(self, cls: type[Any] | None, field: Any, default: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        json_type = _json_type(field.type)
        if json_type is not None:
            out["type"] = json_type
        value = getattr(default, field.name) if default is not None else field.default
        if _plain(value) and value not in (None, (), [], {}):
            out["default"] = list(value) if isinstance(value, tuple) else value
        value_set = self.value_sets.get((cls, field.name)) if cls is not None else None
        value_set = value_set or field.metadata.get(VALUE_SET)
        if value_set is not None:
            # A ${VAR} placeholder is resolved before validate checks the value.
            out = {k: v for k, v in out.items() if k != "type"}
            out["anyOf"] = [value_set, {"type": "string", "pattern": PLACEHOLDER_PATTERN}]
            if _is_optional(field.type):
                out["anyOf"].append({"type": "null"})
        return out


def _fields(cls: type[Any] | None) -> dict[str, Any]:
    if cls is None or not attrs.has(cls):
        return {}
    attrs.resolve_types(cls)  # the annotations are strings (``from __future__ import annotations``)
    return {field.name: field for field in attrs.fields(cls)}


def _descriptions(cls: type[Any] | None) -> dict[str, str]:
    """``key -> text`` from the class docstring's bullets: ``* ``a``, ``b`` — text; ``c`` — text``."""
    bullets: list[str] = []
    open_bullet = False
    for line in (cls.__doc__ or "").splitlines() if cls is not None else ():
        stripped = line.strip()
        if stripped.startswith("* ``"):
            bullets.append(stripped[2:])
            open_bullet = True
        elif open_bullet and stripped:
            bullets[-1] += " " + stripped  # a continuation line
        else:
            open_bullet = False
    out: dict[str, str] = {}
    for bullet in bullets:
        for part in _SEGMENT.split(bullet):
            names, dash, text = part.partition(" — ")
            for name in re.findall(r"``([^`]+)``", names) if dash else ():
                out.setdefault(name, text.strip().replace("``", "`"))
    return out


def _summary(cls: type[Any] | None) -> str | None:
    """The first paragraph of a block class's docstring."""
    doc = (cls.__doc__ or "") if cls is not None and attrs.has(cls) else ""
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split()).replace("``", "`") or None


def _unwrapped(type_: Any) -> tuple[Any, bool]:
    if typing.get_origin(type_) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(type_) if a is not type(None)]
        return (args[0] if len(args) == 1 else Any), True
    return type_, False


def _is_optional(type_: Any) -> bool:
    return _unwrapped(type_)[1]


def _attrs_class(type_: Any) -> type[Any] | None:
    inner, _ = _unwrapped(type_)
    origin = typing.get_origin(inner)
    if origin in (tuple, list):
        inner = typing.get_args(inner)[0] if typing.get_args(inner) else Any
    elif origin is dict:
        inner = typing.get_args(inner)[1] if typing.get_args(inner) else Any
    return inner if isinstance(inner, type) and attrs.has(inner) else None


# The loader's strict scalar hooks (structure.py): a name-like string also takes an unquoted number.
_SCALARS: dict[Any, Any] = {str: ["string", "number"], int: "integer", float: "number", bool: "boolean"}


def _json_type(type_: Any) -> Any:
    inner, optional = _unwrapped(type_)
    origin = typing.get_origin(inner)
    if origin in (tuple, list):
        found: Any = "array"
    elif origin is dict:
        found = "object"
    else:
        found = _SCALARS.get(inner)
    if found is None:
        return None
    if optional:
        found = [*found, "null"] if isinstance(found, list) else [found, "null"]
    return found


def _plain(value: Any) -> bool:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return True
    return isinstance(value, (tuple, list)) and all(isinstance(v, (str, int, float, bool)) for v in value)


# Where ``streamt schema --out-dir`` and ``init`` put the schemas inside a project, and what they are called.
SCHEMA_DIR = ".schema"


def schema_file_name(name: str) -> str:
    return f"{name}.schema.json"


def file_kind(relative: str) -> str | None:
    """Which schema a project file (path relative to the project, ``/``-separated) follows, if any."""
    parts = relative.split("/")
    if not parts[-1].endswith((".yml", ".yaml")):
        return None
    if len(parts) == 1:
        return "project" if parts[0] in PROJECT_FILES else None
    if parts[0] == "environments" and len(parts) == 2:
        return "environment"
    return "declarations" if parts[0] in DECLARATION_DIRS else None


def modeline(relative: str, name: str) -> str:
    """The ``# yaml-language-server: $schema=...`` first line of ``relative``, pointing into ``SCHEMA_DIR``."""
    up = "../" * relative.count("/")
    return f"# yaml-language-server: $schema={up}{SCHEMA_DIR}/{schema_file_name(name)}\n"


def with_editor_schemas(files: dict[str, str], plugins: Plugins | None = None) -> dict[str, str]:
    """``files`` (relative path -> text of a new project) with a ``# yaml-language-server: $schema=`` first line
    on each project YAML file, and the schemas it points to (what ``streamt schema --out-dir .schema`` writes)."""
    out: dict[str, str] = {}
    for relative, content in files.items():
        kind = file_kind(relative)
        out[relative] = content if kind is None else modeline(relative, kind) + content
    for name, schema in file_schemas(plugins).items():
        out[f"{SCHEMA_DIR}/{schema_file_name(name)}"] = to_json_text(schema)
    return out
