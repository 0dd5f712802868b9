"""``load_project``: files on disk -> one immutable ``Project`` for one environment.

Stages: find files -> parse -> interpolate ``${VAR}`` -> check keys (strict: E501, legacy: W401)
-> normalise shorthands -> structure with cattrs -> render SQL and infer materializations.
Anything that makes the project unreadable raises ``StreamtError`` with every problem found at that
stage; findings that validation reports alongside its own (W401, E105, notices) ride on the project.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.project import environments, lifecycle, normalize, schema
from streamt.project import sections as plugin_sections
from streamt.project.dotenv import effective_environment
from streamt.project.interpolation import interpolate, missing_error, placeholders
from streamt.project.model import Defaults as DefaultsBlock
from streamt.project.model import (
    DeploymentState,
    Environment,
    Exposure,
    Lifecycle,
    Model,
    Project,
    ProjectInfo,
    Rules,
    Runtime,
    Safety,
    Source,
    Test,
)
from streamt.project.readonly import ReadOnlyMap, read_only
from streamt.project.sqlmodels import build_models
from streamt.project.structure import StructureError, structure
from streamt.project.yaml_io import Locator, SourcePosition, display_path, read_yaml

API_VERSION = "streamt.dev/v1alpha1"
PROJECT_FILES = ("stream_project.yml", "stream_project.yaml")
DECLARATION_DIRS = ("sources", "models", "tests", "exposures")
KINDS = {"sources": "source", "models": "model", "tests": "test", "exposures": "exposure"}


class _File:
    """One parsed project file: where it is, how to show it, its interpolated document."""

    def __init__(self, path: Path, shown: str, document: Any) -> None:
        self.path = path
        self.shown = shown
        self.document = document


class _Problems:
    """Diagnostics collected across one stage, raised together."""

    def __init__(self) -> None:
        self.errors: list[Diagnostic] = []
        # Each file is composed once for all its findings (strict mode may report thousands).
        self.locator = Locator()

    def add(self, file: _File, keys: tuple[Any, ...], message: str, suggestion: str | None = None) -> None:
        where = self.locator(SourcePosition(file.shown, file.path, keys))
        hint = suggestion or "Fix the value at the reported position (see docs/commands/validate.md for the format)."
        self.errors.append(Diagnostic(Codes.E501_PARSE_ERROR, f"{message} ({where})", hint, where))

    def raise_if_any(self) -> None:
        if self.errors:
            raise StreamtError.from_diagnostics(self.errors)


def find_project_file(root: Path) -> Path:
    try:
        return _find_project_file(root)
    except OSError as exc:  # a name too long for the file system, a path through a file, ...
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Project directory cannot be read: {root} ({exc.strerror or type(exc).__name__})",
            "Pass --project-dir (or set STREAMT_PROJECT_DIR) to a directory containing stream_project.yml.",
        ) from None


def _find_project_file(root: Path) -> Path:
    for name in PROJECT_FILES:
        if (root / name).is_file():
            return root / name
    if not root.is_dir():
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Project directory not found: {root}",
            "Pass --project-dir (or set STREAMT_PROJECT_DIR) to a directory containing stream_project.yml.",
        )
    raise StreamtError(
        Codes.E501_PARSE_ERROR,
        f"stream_project.yml not found in {root}",
        "Run 'streamt init' to create a project, or pass --project-dir.",
    )


def declaration_files(root: Path) -> list[Path]:
    """``*.yml``/``*.yaml`` under the four declaration folders, at any depth, in sorted order.

    Symlinked directories are not followed, so a link loop cannot make the walk endless; a symlinked
    file must stay inside the project (``E501`` otherwise), so a project cannot read files it does
    not contain.
    """
    found: list[Path] = []
    inside = os.path.realpath(root)
    for folder in DECLARATION_DIRS:
        base = root / folder
        if not base.is_dir():
            continue
        for directory, subdirs, files in os.walk(base, followlinks=False):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith((".yml", ".yaml")):
                    path = Path(directory) / name
                    if path.is_symlink():
                        _refuse_outside(path, root, inside)
                    found.append(path)
    return sorted(found)


def _refuse_outside(path: Path, root: Path, inside: str) -> None:
    target = os.path.realpath(path)
    if os.path.commonpath([inside, target]) != inside:
        shown = display_path(path, root)
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"{shown} is a symbolic link to a file outside the project",
            "Copy the file into the project instead of linking to it.",
            location=shown,
        )


def load_project(
    project_dir: str | os.PathLike[str],
    env: str | None = None,
    process_env: Mapping[str, str] | None = None,
    lazy_secrets: bool = False,
) -> Project:
    """Load the project in ``project_dir`` for environment ``env`` (``--env``; ``STREAMT_ENV`` otherwise).

    ``lazy_secrets`` is for commands that never connect (validate, compile, docs, exporters, offline
    plan ...): an unset variable where a secret goes stays its ``${NAME}`` text instead of ``E502``, so
    CI needs no production credentials. Every command that connects loads strictly.

    Raises ``StreamtError`` (E501/E502/E503) when the project cannot be read.
    """
    root = Path(project_dir)
    project_path = find_project_file(root)
    process = dict(os.environ if process_env is None else process_env)
    selection = environments.select(root, env, process)
    variables = effective_environment(root, selection.name if selection.multi else None, process)
    parsed_project = read_yaml(project_path, project_path.name)
    raw_project = parsed_project.document
    if raw_project is None:
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"{project_path.name} is empty",
            "Add at least 'project: {name: ...}' and a 'runtime' section.",
            location=project_path.name,
        )
    if not isinstance(raw_project, dict):
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"{project_path.name} must be a map of sections, not a {type(raw_project).__name__}",
            "Start the file with 'project:'.",
            location=project_path.name,
        )
    api_version = raw_project.get("apiVersion")
    if api_version is not None and api_version != API_VERSION:
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Unsupported apiVersion {api_version!r} in {project_path.name}",
            f"Use 'apiVersion: {API_VERSION}', or remove it for legacy mode.",
            location=project_path.name,
        )
    load_warnings: list[Diagnostic] = []
    if selection.multi and "runtime" in raw_project:
        raw_project = {k: v for k, v in raw_project.items() if k != "runtime"}
        load_warnings.append(
            Diagnostic(
                Codes.W401_UNKNOWN_FIELD_IGNORED,
                f"'runtime' in {project_path.name} is ignored in multi-environment mode",
                "Move runtime settings into environments/<name>.yml.",
                project_path.name,
            )
        )
    if selection.ignored_env_var:
        load_warnings.append(
            Diagnostic(
                Codes.W401_UNKNOWN_FIELD_IGNORED,
                f"STREAMT_ENV={selection.ignored_env_var} is ignored: this is a single-environment project",
                "Unset STREAMT_ENV or add environments/.",
            )
        )
    missing: set[str] = set()
    deferred: set[str] | None = set() if lazy_secrets else None
    sections = plugin_sections.registry()
    kept = sections.not_interpolated()

    def _exempt(path: tuple[Any, ...]) -> bool:
        return _exempt_path(path) or (len(path) >= 2 and (path[0], path[1]) in kept)

    def _interpolated(document: Any, literal: bool, shown: str) -> Any:
        # A literal document is what interpolating it gives (yaml_io.Parsed): nothing to copy.
        return document if literal else interpolate(document, variables, shown, missing, _exempt, deferred=deferred)

    project_doc = _interpolated(raw_project, parsed_project.literal, project_path.name)
    files = [_File(project_path, project_path.name, project_doc)]
    env_file: _File | None = None
    raw_runtime = raw_project.get("runtime")
    if selection.multi and selection.path is not None:
        env_doc = environments.read_environment_file(root, selection)
        raw_runtime = env_doc.get("runtime")
        shown = display_path(selection.path, root)
        env_resolved = interpolate(env_doc, variables, shown, missing, _exempt, deferred=deferred)
        env_file = _File(selection.path, shown, env_resolved)
    for path in declaration_files(root):
        shown = display_path(path, root)
        parsed = read_yaml(path, shown)
        files.append(_File(path, shown, _interpolated(parsed.document, parsed.literal, shown)))
    if missing:
        raise missing_error(missing)
    project = _build(root, files, env_file, selection, variables, api_version, load_warnings, sections)
    # Placeholder text is recorded from the raw runtime block, normalised like the runtime itself
    # (legacy keys renamed), so the paths match the attribute names on ``project.runtime``.
    runtime_placeholders = placeholders(normalize.runtime(raw_runtime)) if isinstance(raw_runtime, dict) else {}
    return attrs.evolve(project, runtime_placeholders=runtime_placeholders)


def _exempt_path(path: tuple[Any, ...]) -> bool:
    """Values resolved at apply/test time (dsl.md §2.2); plugin sections may keep theirs as well."""
    if len(path) >= 3 and path[0] == "models" and path[2] == "sql":
        return True
    if len(path) >= 4 and path[0] == "models" and path[2] in ("sink", "connector") and path[3] == "config":
        return True
    if len(path) >= 5 and path[0] == "models" and path[2:4] == ("advanced", "sink") and path[4] == "config":
        return True
    return len(path) >= 3 and path[0] == "tests" and path[2] == "on_failure"


def _build(
    root: Path,
    files: list[_File],
    env_file: _File | None,
    selection: environments.Selection,
    variables: dict[str, str],
    api_version: Any,
    load_warnings: list[Diagnostic],
    sections: plugin_sections.Registry,
) -> Project:
    strict = api_version is not None
    problems = _Problems()
    warnings = list(load_warnings)
    project_file = files[0]
    removals = lifecycle.registry()
    project_keys = lifecycle.accepted_keys(plugin_sections.accepted_keys(schema.PROJECT_FILE, sections), removals)
    _check_keys(project_file, project_keys, strict, problems, warnings)
    if env_file is not None:
        env_keys = plugin_sections.accepted_keys(schema.ENVIRONMENT_FILE, sections)
        _check_keys(env_file, env_keys, strict, problems, warnings)
    declarations: dict[str, list[tuple[_File, tuple[Any, ...], dict[str, Any]]]] = {k: [] for k in KINDS}
    for file in files:
        document = file.document
        if document is None:
            continue
        if not isinstance(document, dict):
            problems.add(file, (), f"{file.shown} must be a map with sources/models/tests/exposures lists")
            continue
        if file is not project_file:
            _check_keys(file, schema.DECLARATIONS, strict, problems, warnings)
        for key in KINDS:
            items = document.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                problems.add(file, (key,), f"'{key}' must be a list")
                continue
            for index, item in enumerate(items):
                if not isinstance(item, dict):
                    problems.add(file, (key, index), f"each entry of '{key}' must be a map")
                    continue
                declarations[key].append((file, (key, index), item))
    problems.raise_if_any()

    doc = project_file.document
    info = _structure_block(problems, project_file, ("project",), doc.get("project"), ProjectInfo, "project")
    version = doc["project"].get("version") if isinstance(doc.get("project"), dict) else None
    if version is not None and not isinstance(version, str):
        # Names accept an unquoted number (`group: 7`); the version is text by dsl.md §4 (`"1.0"` != `1`).
        problems.add(project_file, ("project", "version"), "Invalid value at 'project.version': expected a string")
    runtime_file = env_file if env_file is not None else project_file
    runtime_raw = runtime_file.document.get("runtime")
    if runtime_raw is None:
        problems.add(runtime_file, (), "Missing 'runtime' section", "Add runtime.kafka.bootstrap_servers.")
        runtime = None
    else:
        runtime = _with_sections(
            problems, runtime_file, "runtime", _map(runtime_raw, normalize.runtime), Runtime, sections
        )
        if runtime is not None:
            runtime = attrs.evolve(
                runtime, enabled=plugin_sections.enabled(runtime.sections, sections), variables=ReadOnlyMap(variables)
            )
    defaults = _optional(problems, project_file, "defaults", DefaultsBlock)
    if "rules" in doc and "governance" in doc:
        problems.add(project_file, ("governance",), "Both 'rules' and 'governance' are set", "Keep only 'rules'.")
    rules_key = "governance" if "governance" in doc and "rules" not in doc else "rules"
    rules = _optional(problems, project_file, rules_key, Rules)
    tombstones = _lifecycle(problems, project_file, removals)
    state_file = env_file if env_file is not None and "deployment_state" in env_file.document else project_file
    state_raw = state_file.document.get("deployment_state")
    deployment_state = (
        _with_sections(problems, state_file, "deployment_state", state_raw, DeploymentState, sections)
        if state_raw is not None
        else None
    )
    safety_file = env_file if env_file is not None else project_file
    safety = _optional(problems, safety_file, "safety", Safety)
    env_block = env_file.document.get("environment") if env_file is not None else None
    env_block = env_block if isinstance(env_block, dict) else {}
    environment = _structure_block(
        problems,
        env_file or project_file,
        ("environment",),
        {
            "name": selection.name,
            "description": env_block.get("description"),
            "protected": env_block.get("protected", False),
            "multi": selection.multi,
        },
        Environment,
    )

    source_names: set[str] = {
        item["name"] for _, _, item in declarations["sources"] if isinstance(item.get("name"), str)
    }
    model_names: set[str] = {item["name"] for _, _, item in declarations["models"] if isinstance(item.get("name"), str)}
    sources = []
    for file, keys, item in declarations["sources"]:
        source = _structure_block(problems, file, keys, _map(item, normalize.source), Source, "source")
        if source is not None:
            sources.append((file, source))
    normalized_models = []
    for file, keys, item in declarations["models"]:
        try:
            normalized_models.append((file, keys, normalize.model(item, model_names, source_names)))
        except normalize.Conflict as conflict:
            problems.add(file, keys + conflict.path, str(conflict), "Set it in one place only.")
    tests = []
    for file, keys, item in declarations["tests"]:
        test = _structure_block(problems, file, keys, _map(item, normalize.test), Test, "test")
        if test is not None:
            tests.append((file, test))
    exposures = []
    for file, keys, item in declarations["exposures"]:
        exposure = _structure_block(problems, file, keys, _map(item, normalize.exposure), Exposure, "exposure")
        if exposure is not None:
            exposures.append((file, exposure))
    problems.raise_if_any()
    assert info is not None and runtime is not None and environment is not None

    topics = {s.name: s.topic for _, s in sources}
    model_topics: dict[str, str] = {}
    for _, _, data in normalized_models:
        name = data.get("name")
        topic = data.get("topic")
        if isinstance(name, str):
            topic_name = topic.get("name") if isinstance(topic, dict) else None
            model_topics.setdefault(name, topic_name if isinstance(topic_name, str) else name)
    environment = attrs.evolve(environment, safety=safety or Safety())
    models, render_diagnostics, notices = build_models(
        normalized_models,
        topics,
        model_topics,
        variables,
        doc,
        has_gateway=runtime.enables("virtual_topic"),
        has_flink=runtime.enables("flink"),
        structure_model=lambda file, keys, data: _structure_block(problems, file, keys, data, Model, "model"),
    )
    problems.raise_if_any()
    # Each declaration's file, carrying the path to its `name` key: findings about it resolve to
    # file:line:col only if reported (see streamt.validation), so a clean load parses nothing twice.
    locations: dict[tuple[str, str], str] = {}
    for plural, kind in KINDS.items():
        for file, keys, item in declarations[plural]:
            name = item.get("name")
            if isinstance(name, str):
                locations.setdefault((kind, name), SourcePosition(file.shown, file.path, (*keys, "name")))
    return Project(
        root=str(root),
        info=info,
        environment=environment,
        runtime=runtime,
        api_version=api_version,
        defaults=defaults or DefaultsBlock(),
        rules=rules or Rules(),
        sources=tuple(s for _, s in sources),
        models=tuple(m for _, m in models),
        tests=tuple(t for _, t in tests),
        exposures=tuple(e for _, e in exposures),
        deployment_state=deployment_state or DeploymentState(),
        lifecycle=tombstones or Lifecycle(),
        locations=locations,
        diagnostics=tuple(warnings + render_diagnostics),
        notices=tuple(notices),
    )


def _map(item: Any, fn: Any) -> Any:
    return fn(item) if isinstance(item, dict) else item


def _check_keys(file: _File, node: Any, strict: bool, problems: _Problems, warnings: list[Diagnostic]) -> None:
    for unknown in schema.unknown_keys(file.document, node):
        if strict:
            problems.add(file, (*unknown.path, unknown.key), f"Unknown key '{unknown.dotted}'", unknown.suggestion)
        else:
            warnings.append(
                Diagnostic(
                    Codes.W401_UNKNOWN_FIELD_IGNORED,
                    f"Unknown key '{unknown.dotted}' ignored in {file.shown}",
                    unknown.suggestion,
                    SourcePosition(file.shown, file.path, (*unknown.path, unknown.key)),
                )
            )


# Fields that core fills in itself, never from what a file says (a key of that name is unknown).
_DERIVED = ("sections", "enabled")


def _with_sections(
    problems: _Problems, file: _File, block: str, data: Any, cls: type[Any], sections: plugin_sections.Registry
) -> Any:
    """``cls`` from the core keys of ``data``, with the plugin sections in its ``sections``.

    A claimed section is structured into its owner's ``model`` (problems at their position, as
    for core's keys); one nobody claims (its plugin is missing) is kept as written, read-only.
    """
    if not isinstance(data, dict):
        return _structure_block(problems, file, (block,), data, cls)
    owned = set(sections.names(block))
    core = {k: v for k, v in data.items() if k not in owned and k not in _DERIVED}
    value = _structure_block(problems, file, (block,), core, cls)
    found: dict[str, Any] = {}
    for name, raw in data.items():
        if name not in owned or raw is None:
            continue
        section = sections.claimed.get(f"{block}.{name}")
        if section is None:
            found[name] = read_only(raw)
            continue
        structured = _structure_block(problems, file, (block, name), raw, section.model)
        if structured is not None:
            found[name] = structured
    return attrs.evolve(value, sections=ReadOnlyMap(found)) if value is not None else None


def _lifecycle(problems: _Problems, file: _File, removals: lifecycle.Registry) -> Lifecycle | None:
    """Each ``lifecycle`` list structured into its removal kind's ``model``; a known unclaimed one kept as written."""
    value = file.document.get(lifecycle.BLOCK)
    if not isinstance(value, dict):
        return _optional(problems, file, lifecycle.BLOCK, Lifecycle)
    found: dict[str, Any] = {}
    for key in removals.lists():
        raw = value.get(key)
        removal = removals.claimed.get(key)
        if raw is None:
            continue
        if removal is None:
            found[key] = read_only(raw)
            continue
        entries = _structure_block(problems, file, (lifecycle.BLOCK,), {key: raw}, lifecycle.holder(removal))
        if entries is not None:
            found[key] = getattr(entries, key)
    return Lifecycle(removals=ReadOnlyMap(found))


def _optional(problems: _Problems, file: _File, key: str, cls: type[Any]) -> Any:
    value = file.document.get(key)
    if value is None:
        return None
    return _structure_block(problems, file, (key,), value, cls)


def _structure_block(
    problems: _Problems,
    file: _File,
    keys: tuple[Any, ...],
    data: Any,
    cls: type[Any],
    label: str | None = None,
) -> Any:
    if data is None and label == "project":
        problems.add(file, (), "Missing 'project' section", "Add 'project: {name: my-project}'.")
        return None
    try:
        return structure(data, cls)
    except StructureError as exc:
        name = data.get("name") if isinstance(data, dict) else None
        what = f"{label.capitalize()} '{name}'" if label and isinstance(name, str) and label != "project" else None
        for path, message in exc.problems:
            field = schema.dotted(_user_path(path))
            if message == "required field missing" and what and field:
                text = f"{what} missing required field '{field}'"
            elif message == "required field missing":
                text = f"Missing required field '{schema.dotted((*keys, *_user_path(path)))}'"
            else:
                text = f"Invalid value at '{schema.dotted((*keys, *_user_path(path)))}': {message}"
            problems.add(file, keys + _user_path(path), text)
        return None


def _user_path(path: tuple[Any, ...]) -> tuple[Any, ...]:
    renames = {"from_": "from", "declared_materialized": "materialized"}
    return tuple(renames.get(p, p) if isinstance(p, str) else p for p in path)


__all__ = ["API_VERSION", "declaration_files", "find_project_file", "load_project"]
