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

from streamt.capabilities import ConfigSection
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
from streamt.render import VARIABLE_NAME, PublishedVariables

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

    def __init__(self, locator: Locator | None = None) -> None:
        self.errors: list[Diagnostic] = []
        # Each file is composed once for all its findings (strict mode may report thousands).
        self.locator = locator or Locator()

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
    verbatim = sections.verbatim()

    def _exempt(path: tuple[Any, ...]) -> bool:
        return _exempt_path(path) or (len(path) >= 2 and (path[0], path[1]) in kept) or _verbatim(path, verbatim)

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
    # `connector:`, the legacy spelling of the sink section, keeps its `config` as the section does.
    if len(path) >= 4 and path[0] == "models" and path[2] == "connector" and path[3] == "config":
        return True
    return len(path) >= 3 and path[0] == "tests" and path[2] == "on_failure"


def _verbatim(path: tuple[Any, ...], verbatim: Mapping[str, tuple[str, ...] | None]) -> bool:
    """Whether ``path`` is inside a model section's value kept as written (``ConfigSection.verbatim``)."""
    if len(path) < 3 or path[0] != "models":
        return False
    rest = path[3:] if path[2] == "advanced" else path[2:]
    if not rest or rest[0] not in verbatim:
        return False
    keys = verbatim[rest[0]]
    return keys is None or (len(rest) >= 2 and rest[1] in keys)


Entry = tuple[_File, tuple[Any, ...], dict[str, Any]]  # a declaration: its file, its path there, its map


class _Stage:
    """What one load shares between its steps: the mode, the plugin sections, the findings so far."""

    def __init__(self, api_version: Any, load_warnings: list[Diagnostic], sections: plugin_sections.Registry) -> None:
        self.strict = api_version is not None
        self.problems = _Problems()
        self.warnings = list(load_warnings)
        self.sections = sections
        self.model_sections = sections.model_sections()
        self.source_sections = sections.declaration_sections(plugin_sections.SOURCE)
        self.removals = lifecycle.registry()

    def check_keys(self, file: _File, node: Any) -> None:
        _check_keys(file, node, self.strict, self.problems, self.warnings)

    def structure(self, file: _File, keys: tuple[Any, ...], data: Any, cls: type[Any], label: str | None = None) -> Any:
        return _structure_block(self.problems, file, keys, data, cls, label)


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
    """The ``Project`` from the interpolated files, in the stages of the module docstring.

    Each stage reports every problem it finds before the load stops: the file shapes and keys,
    then the project blocks and the declarations, then the models (rendered and structured).
    """
    stage = _Stage(api_version, load_warnings, sections)
    project_file = files[0]
    declarations = _declarations(files, env_file, stage)
    stage.problems.raise_if_any()
    blocks = _ProjectBlocks(project_file, env_file, selection, variables, stage)
    sources = [
        source
        for file, keys, item in declarations["sources"]
        if (source := _with_own_sections(file, keys, _map(item, normalize.source), Source, stage)) is not None
    ]
    normalized_models = _normalized_models(declarations, stage)
    tests = _structured_each(declarations["tests"], normalize.test, Test, "test", stage)
    exposures = _structured_each(declarations["exposures"], normalize.exposure, Exposure, "exposure", stage)
    stage.problems.raise_if_any()
    assert blocks.info is not None and blocks.runtime is not None and blocks.environment is not None
    models, render_diagnostics, notices = build_models(
        normalized_models,
        {s.name: s.topic for s in sources},
        _model_topics(normalized_models),
        PublishedVariables(variables, blocks.info.non_secret_env),
        project_file.document,
        has_gateway=blocks.runtime.enables("virtual_topic"),
        has_flink=blocks.runtime.enables("flink"),
        structure_model=lambda file, keys, data: _with_own_sections(file, keys, data, Model, stage),
    )
    stage.problems.raise_if_any()
    return Project(
        root=str(root),
        info=blocks.info,
        environment=attrs.evolve(blocks.environment, safety=blocks.safety or Safety()),
        runtime=blocks.runtime,
        api_version=api_version,
        defaults=blocks.defaults or DefaultsBlock(),
        rules=blocks.rules or Rules(),
        sources=tuple(sources),
        models=tuple(m for _, m in models),
        tests=tuple(tests),
        exposures=tuple(exposures),
        deployment_state=blocks.deployment_state or DeploymentState(),
        lifecycle=blocks.lifecycle or Lifecycle(),
        locations=_locations(declarations),
        diagnostics=tuple(stage.warnings + render_diagnostics),
        notices=tuple(notices),
    )


def _declarations(files: list[_File], env_file: _File | None, stage: _Stage) -> dict[str, list[Entry]]:
    """Every file's keys checked (plugin sections grafted in) and its declarations, by plural kind."""
    project_file = files[0]
    project_keys = plugin_sections.accepted_keys(schema.PROJECT_FILE, stage.sections)
    stage.check_keys(project_file, lifecycle.accepted_keys(project_keys, stage.removals))
    if env_file is not None:
        stage.check_keys(env_file, plugin_sections.accepted_keys(schema.ENVIRONMENT_FILE, stage.sections))
    declaration_keys = plugin_sections.accepted_keys(schema.DECLARATIONS, stage.sections)
    declarations: dict[str, list[Entry]] = {k: [] for k in KINDS}
    for file in files:
        document = file.document
        if document is None:
            continue
        if not isinstance(document, dict):
            stage.problems.add(file, (), f"{file.shown} must be a map with sources/models/tests/exposures lists")
            continue
        if file is not project_file:
            stage.check_keys(file, declaration_keys)
        for key in KINDS:
            _entries_of(file, key, document.get(key), declarations[key], stage)
    return declarations


def _entries_of(file: _File, key: str, items: Any, into: list[Entry], stage: _Stage) -> None:
    if items is None:
        return
    if not isinstance(items, list):
        stage.problems.add(file, (key,), f"'{key}' must be a list")
        return
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            stage.problems.add(file, (key, index), f"each entry of '{key}' must be a map")
            continue
        into.append((file, (key, index), item))


class _ProjectBlocks:
    """The project's blocks outside the declarations, each structured where it is written.

    Structured in this order, so that the problems of a broken project are reported in file order.
    """

    def __init__(
        self,
        project_file: _File,
        env_file: _File | None,
        selection: environments.Selection,
        variables: dict[str, str],
        stage: _Stage,
    ) -> None:
        self.info = _project_info(project_file, stage)
        self.runtime = _runtime(env_file or project_file, variables, stage)
        self.defaults = _defaults(project_file, stage)
        self.rules = _rules(project_file, stage)
        self.lifecycle = _lifecycle(stage.problems, project_file, stage.removals)
        state_file = env_file if env_file is not None and "deployment_state" in env_file.document else project_file
        self.deployment_state = _deployment_state(state_file, stage)
        self.safety = _optional(stage.problems, env_file or project_file, "safety", Safety)
        self.environment = _environment(env_file or project_file, env_file, selection, stage)


def _project_info(project_file: _File, stage: _Stage) -> ProjectInfo | None:
    doc = project_file.document
    info = stage.structure(project_file, ("project",), doc.get("project"), ProjectInfo, "project")
    version = doc["project"].get("version") if isinstance(doc.get("project"), dict) else None
    if version is not None and not isinstance(version, str):
        # Names accept an unquoted number (`group: 7`); the version is text by dsl.md §4 (`"1.0"` != `1`).
        stage.problems.add(
            project_file, ("project", "version"), "Invalid value at 'project.version': expected a string"
        )
    for index, name in enumerate(info.non_secret_env if info is not None else ()):
        if not isinstance(name, str) or VARIABLE_NAME.fullmatch(name) is None:
            where = ("project", "non_secret_env", index)
            stage.problems.add(
                project_file, where, "Invalid value in 'project.non_secret_env': expected a variable name"
            )
    return info


def _runtime(runtime_file: _File, variables: dict[str, str], stage: _Stage) -> Runtime | None:
    runtime_raw = runtime_file.document.get("runtime")
    if runtime_raw is None:
        stage.problems.add(runtime_file, (), "Missing 'runtime' section", "Add runtime.kafka.bootstrap_servers.")
        return None
    runtime = _with_sections(
        stage.problems, runtime_file, "runtime", _map(runtime_raw, normalize.runtime), Runtime, stage.sections
    )
    if runtime is None:
        return None
    enabled = plugin_sections.enabled(runtime.sections, stage.sections)
    return attrs.evolve(runtime, enabled=enabled, variables=ReadOnlyMap(variables))


def _defaults(project_file: _File, stage: _Stage) -> DefaultsBlock | None:
    """``defaults``, with the model sections a plugin accepts under ``defaults.models`` in its ``sections``."""
    raw = project_file.document.get("defaults")
    models = raw.get("models") if isinstance(raw, dict) else None
    if not isinstance(models, dict):
        return _optional(stage.problems, project_file, "defaults", DefaultsBlock)
    accepted = {n for n, s in stage.model_sections.items() if s is None or s.defaults}
    core = {k: v for k, v in models.items() if k not in accepted and k not in _DERIVED}
    defaults = _optional(stage.problems, project_file, "defaults", DefaultsBlock, {**raw, "models": core})
    written = {k: models[k] for k in accepted & set(models)}
    found = _own_sections(project_file, ("defaults", "models"), written, stage.model_sections, stage.problems)
    if defaults is None or defaults.models is None:
        return defaults
    return attrs.evolve(defaults, models=attrs.evolve(defaults.models, sections=ReadOnlyMap(found)))


def _rules(project_file: _File, stage: _Stage) -> Rules | None:
    doc = project_file.document
    if "rules" in doc and "governance" in doc:
        stage.problems.add(project_file, ("governance",), "Both 'rules' and 'governance' are set", "Keep only 'rules'.")
    rules_key = "governance" if "governance" in doc and "rules" not in doc else "rules"
    return _optional(stage.problems, project_file, rules_key, Rules)


def _deployment_state(state_file: _File, stage: _Stage) -> DeploymentState | None:
    state_raw = state_file.document.get("deployment_state")
    if state_raw is None:
        return None
    return _with_sections(stage.problems, state_file, "deployment_state", state_raw, DeploymentState, stage.sections)


def _environment(
    file: _File, env_file: _File | None, selection: environments.Selection, stage: _Stage
) -> Environment | None:
    env_block = env_file.document.get("environment") if env_file is not None else None
    env_block = env_block if isinstance(env_block, dict) else {}
    fields = {
        "name": selection.name,
        "description": env_block.get("description"),
        "protected": env_block.get("protected", False),
        "multi": selection.multi,
    }
    return stage.structure(file, ("environment",), fields, Environment)


def _structured_each(entries: list[Entry], fold: Any, cls: type[Any], label: str, stage: _Stage) -> list[Any]:
    """Each declaration of one kind, its shorthands folded, as ``cls`` (the ones that structure)."""
    out = []
    for file, keys, item in entries:
        value = stage.structure(file, keys, _map(item, fold), cls, label)
        if value is not None:
            out.append(value)
    return out


def _normalized_models(declarations: dict[str, list[Entry]], stage: _Stage) -> list[Entry]:
    """Each model's map with its shorthands folded and its ``advanced`` blocks merged in (dsl.md §9.3)."""
    source_names = {item["name"] for _, _, item in declarations["sources"] if isinstance(item.get("name"), str)}
    model_names = {item["name"] for _, _, item in declarations["models"] if isinstance(item.get("name"), str)}
    names = tuple(stage.model_sections)
    out = []
    for file, keys, item in declarations["models"]:
        try:
            out.append((file, keys, normalize.model(item, model_names, source_names, names)))
        except normalize.Conflict as conflict:
            stage.problems.add(file, keys + conflict.path, str(conflict), "Set it in one place only.")
    return out


def _model_topics(normalized_models: list[Entry]) -> dict[str, str]:
    """Each model's physical topic (its name unless ``topic.name`` says otherwise), for ``ref()``."""
    model_topics: dict[str, str] = {}
    for _, _, data in normalized_models:
        name = data.get("name")
        topic = data.get("topic")
        if isinstance(name, str):
            topic_name = topic.get("name") if isinstance(topic, dict) else None
            model_topics.setdefault(name, topic_name if isinstance(topic_name, str) else name)
    return model_topics


def _with_own_sections(file: _File, keys: tuple[Any, ...], data: Any, cls: type[Any], stage: _Stage) -> Any:
    """A model or a source from its core keys, with its plugin sections (each its owner's value) in ``sections``.

    The sections are structured first (the declaration is built once), their problems reported after
    the declaration's own, in the order its fields are read.
    """
    label = "model" if cls is Model else "source"
    owners = stage.model_sections if cls is Model else stage.source_sections
    if not isinstance(data, dict) or not owners:
        return stage.structure(file, keys, data, cls, label)
    section_problems = _Problems(stage.problems.locator)
    found = _own_sections(file, keys, data, owners, section_problems)
    core = {k: v for k, v in data.items() if k not in owners and k not in _DERIVED}
    if found:
        core["sections"] = ReadOnlyMap(found)
    value = stage.structure(file, keys, core, cls, label)
    stage.problems.errors += section_problems.errors
    return value


def _own_sections(
    file: _File,
    keys: tuple[Any, ...],
    data: Mapping[str, Any],
    owners: Mapping[str, ConfigSection | None],
    problems: _Problems,
) -> dict[str, Any]:
    """The plugin sections written in ``data``: structured by their owner, or as written when unclaimed."""
    found: dict[str, Any] = {}
    for name, raw in data.items():
        if name not in owners or raw is None:
            continue
        section = owners[name]
        if section is None:
            found[name] = read_only(raw)
            continue
        structured = _structure_block(problems, file, (*keys, name), raw, section.model)
        if structured is not None:
            found[name] = structured
    return found


def _locations(declarations: dict[str, list[Entry]]) -> dict[tuple[str, str], str]:
    """Each declaration's file, carrying the path to its `name` key.

    Findings about a declaration resolve to file:line:col only if reported (see streamt.validation),
    so a clean load parses nothing twice.
    """
    locations: dict[tuple[str, str], str] = {}
    for plural, kind in KINDS.items():
        for file, keys, item in declarations[plural]:
            name = item.get("name")
            if isinstance(name, str):
                locations.setdefault((kind, name), SourcePosition(file.shown, file.path, (*keys, "name")))
    return locations


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


def _optional(problems: _Problems, file: _File, key: str, cls: type[Any], value: Any = None) -> Any:
    value = file.document.get(key) if value is None else value
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
