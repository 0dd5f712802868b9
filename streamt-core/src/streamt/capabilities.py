"""Small value types that plugins return from capability hooks.

Every plugin module imports them while the CLI starts, so they are ``streamt.values.Value``
classes (no class-building library to import); ``streamt.sdk.replace`` copies one with changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from streamt.values import Value


class Materialization(Value):
    """A materialization (or executor) a plugin compiles (``streamt_materializations``).

    * ``name`` — as written in a model's ``materialized:`` (``topic``,
      ``flink``, ``sink``, ``virtual_topic``, or a plugin's own name) or
      ``executor:`` (``kafka_streams``).
    * ``description`` — one line for ``streamt plugins`` and messages.
    * ``extra`` — the ``streamt`` extra (or distribution) that installs the
      plugin, so that core can say ``pip install 'streamt[<extra>]'``.
    * ``runtime_sections`` — the ``runtime.*`` sections the plugin owns.
    * ``implemented`` — ``False`` for a declared placeholder: using it is
      ``E904_NOT_IMPLEMENTED`` instead of ``E903_PLUGIN_REQUIRED``.
    * ``role`` — ``materialization`` (a value of ``materialized:``) or
      ``executor`` (a value of ``executor:``); a name the known-kinds catalog
      lists as an executor (``kafka_streams``) is one whatever this says.
    """

    __slots__ = _fields = ("name", "description", "extra", "runtime_sections", "implemented", "role")

    name: str
    description: str
    extra: str
    runtime_sections: tuple[str, ...]
    implemented: bool
    role: str

    def __init__(
        self,
        name: str,
        description: str,
        extra: str,
        runtime_sections: tuple[str, ...] = (),
        implemented: bool = True,
        role: str = "materialization",
    ) -> None:
        self._fill(name, description, extra, runtime_sections, implemented, role)


class ArtifactKind(Value):
    """An artifact kind a plugin compiles, and where core puts it (``streamt_artifact_kinds``).

    * ``name`` — the ``Artifact.kind`` it registers (``topic``, ``flink_job``, ``lake_table``).
    * ``directory`` — where its files go under the output directory (``topics``,
      ``lifecycle/connector_removals``): relative, ``/``-separated, no ``.`` or ``..`` part.
    * ``manifest_key`` — its list under ``artifacts`` in ``manifest.json`` (``topics``); the
      manifest lists every registered key, empty when no artifact has the kind.
    * ``rank`` — its place when no ``depends_on`` decides (artifacts, and the sections of plan,
      apply and diff text): lower first, ties by kind name. streamt's plugins use storage 10-29,
      jobs, connectors and rules 30-69, test jobs 70-79, removals 80-99; an unregistered kind is 100.
    * ``title`` — its section heading in plan, apply and diff text (``Flink Jobs``); empty: the name.
    * ``named_by`` — ``identity`` (the file is named after ``Artifact.identity``) or ``name``
      (after the declaration, ``Artifact.name``, as dsl.md section 18 names connector files).
    * ``materializations`` — the values of ``materialized:`` whose models this plugin compiles
      into the kind; ``executors`` — the values of ``executor:`` (a ``topic`` model with SQL);
      ``test_types`` — the values of ``tests[].type``; ``sources`` — ``True`` when sources compile
      into it. Core sends each declaration to ``streamt_compile`` only of the plugins whose kinds
      it produces (``streamt.sdk.produces``); a kind with none of these (a removal core compiles
      from tombstones) is registered for its layout only.
    """

    __slots__ = _fields = (
        "name",
        "directory",
        "manifest_key",
        "rank",
        "title",
        "named_by",
        "materializations",
        "executors",
        "test_types",
        "sources",
    )

    name: str
    directory: str
    manifest_key: str
    rank: int
    title: str
    named_by: str
    materializations: tuple[str, ...]
    executors: tuple[str, ...]
    test_types: tuple[str, ...]
    sources: bool

    def __init__(
        self,
        name: str,
        directory: str,
        manifest_key: str,
        rank: int,
        title: str = "",
        named_by: str = "identity",
        materializations: tuple[str, ...] = (),
        executors: tuple[str, ...] = (),
        test_types: tuple[str, ...] = (),
        sources: bool = False,
    ) -> None:
        self._fill(
            name, directory, manifest_key, rank, title, named_by, materializations, executors, test_types, sources
        )


class Exporter(Value):
    """An exporter mounted as ``streamt <group> <name>`` (``streamt_exporters``).

    * ``name`` — the subcommand name (``strimzi``, ``odcs`` ...).
    * ``group`` — the command group it belongs to: ``export`` or ``docs``.
    * ``description`` — the one-line help ``streamt <group> --help`` shows.
    * ``command_factory`` — returns a ``click.Command`` named ``name``; it is
      called only when the command runs (or its own ``--help`` is asked for),
      so importing the exporter's modules there costs nothing at start-up.
    """

    __slots__ = _fields = ("name", "group", "description", "command_factory")

    name: str
    group: str
    description: str
    command_factory: Callable[[], Any]

    def __init__(self, name: str, group: str, description: str, command_factory: Callable[[], Any]) -> None:
        self._fill(name, group, description, command_factory)


class StateBackend(Value):
    """A named deployment-state backend (``deployment_state.backend``), from ``streamt_state_backends``.

    * ``name`` — the value of ``deployment_state.backend`` that selects it.
    * ``description`` — one line for ``streamt plugins`` and messages.
    * ``implemented`` — ``False`` for a declared placeholder (``E904``).
    * ``factory`` — ``factory(project=..., project_dir=..., purpose=...)``
      returns the backend object for one state address (the
      ``streamt.sdk.StateBackend`` protocol, including the recovery methods);
      it must not connect anywhere yet. ``purpose`` is ``read``, ``write`` or
      ``admin``.

    ``streamt.sdk`` exports this class as ``StateBackendRegistration``.
    """

    __slots__ = _fields = ("name", "description", "implemented", "factory")

    name: str
    description: str
    implemented: bool
    factory: Callable[..., Any] | None

    def __init__(
        self, name: str, description: str, implemented: bool = True, factory: Callable[..., Any] | None = None
    ) -> None:
        self._fill(name, description, implemented, factory)


class TestType(Value):
    """A test type (``tests[].type``) a plugin evaluates, declared through ``streamt_test_types``.

    * ``name`` — as written in ``type:`` (``schema``, ``sample``, ``continuous`` or a plugin's own).
    * ``description`` — one line for ``streamt plugins`` and messages.
    * ``extra`` — the ``streamt`` extra (or distribution) that installs the plugin.
    * ``implemented`` — ``False`` for a declared placeholder (``E904``).
    """

    __slots__ = _fields = ("name", "description", "extra", "implemented")

    __test__ = False  # not a pytest test class

    name: str
    description: str
    extra: str
    implemented: bool

    def __init__(self, name: str, description: str, extra: str, implemented: bool = True) -> None:
        self._fill(name, description, extra, implemented)


class AssertionKind(Value):
    """An assertion kind (the key of one ``tests[].assertions`` item), from ``streamt_assertion_kinds``.

    * ``name`` — the assertion key (``not_null``, ``range`` ... or a plugin's own).
    * ``description`` — one line for messages.
    * ``test_types`` — the test types that evaluate it (empty: every type).
    * ``extra`` — the ``streamt`` extra (or distribution) that installs the plugin.
    """

    __slots__ = _fields = ("name", "description", "extra", "test_types")

    name: str
    description: str
    extra: str
    test_types: tuple[str, ...]

    def __init__(self, name: str, description: str, extra: str, test_types: tuple[str, ...] = ()) -> None:
        self._fill(name, description, extra, test_types)


class ConfigSection(Value):
    """A configuration section a plugin owns and validates, from ``streamt_config_sections``.

    Core reads only the sections it owns (``runtime.kafka``, ``runtime.schema_registry`` ...); any other
    section of ``runtime`` or ``deployment_state``, and every provider key of a model or a source,
    belongs to the plugin that declares it here. Core checks its keys, structures it into ``model``
    at load time (a value of the wrong type is ``E501`` at its position, as for core's own blocks)
    and keeps the result, opaque to core, under its last name part in ``project.runtime.sections``,
    ``project.deployment_state.sections`` or each model's (or source's) ``sections`` (``model_section``).

    * ``path`` — ``runtime.<name>``, ``deployment_state.<name>``, ``model.<name>`` or
      ``source.<name>``: where users write the section (a model section also under the model's
      ``advanced``).
    * ``model`` — an ``attrs`` class: scalars are type-checked strictly (no coercion), nested
      ``attrs`` classes, ``tuple[...]`` and ``dict[str, ...]`` are structured recursively. A field's
      ``metadata={"json_schema": {"enum": [...]}}`` (or ``{"pattern": ...}``) is the value set
      ``streamt schema`` shows for it: say there what ``check`` accepts. A model section may also be
      one value (``str`` for ``model.flink_cluster``), with ``keys`` ``None``.
    * ``keys`` — the accepted keys as written: ``{key: None}`` for a value,
      ``{key: {...}}`` for a map with known keys, ``{"*": {...}}`` for a map of any keys whose
      values have the given keys. Any other key is ``W401`` (legacy) or ``E501`` (strict).
    * ``extra`` — the ``streamt`` extra that installs the plugin (for ``E903`` when it is missing).
    * ``check`` — ``check(value, project) -> [Diagnostic]``: value checks beyond the types
      (enumerations, ranges), run by ``validate``; ``value`` is the structured ``model``. A model
      section is checked by the plugin's own ``streamt_validate``, which sees every model.
    * ``enables`` — ``enables(value) -> [materialization]``: the materializations whose runtime
      the written section configures (``flink`` for ``runtime.flink``; ``virtual_topic`` when
      ``runtime.conduktor`` has a ``gateway``). Core's materialization inference (dsl.md §9.2)
      asks this (``Runtime.enables``), never the value itself.
    * ``interpolate`` — ``False`` for a section whose values are names of environment variables,
      not values: ``${...}`` in it is kept as written.
    * ``check_declaration`` — ``check_declaration(declaration, project) -> [Diagnostic]``: what one
      model or test needs of this plugin's runtime, whether the section is written or not (a
      ``flink`` model without ``runtime.flink`` is ``E202``). ``validate`` asks it for each model,
      then each test, section by section in path order, before the written sections' ``check``.
    * ``verbatim`` — keys of the section whose values keep ``${...}`` as written, for the plugin to
      resolve when it deploys (a connector's ``config``).
    * ``description`` — one line for ``streamt schema`` (a model section's key).
    * ``shown`` — ``show model`` lists the section under its name (``{}`` when not written).
    * ``defaults`` — the section is also accepted under ``defaults.models`` (the project default
      for every model: ``project.defaults.models.section(name)``).
    """

    __slots__ = _fields = (
        *("path", "model", "keys", "extra", "check", "enables", "interpolate", "check_declaration"),
        *("verbatim", "description", "shown", "defaults"),
    )

    path: str
    model: type[Any]
    keys: Mapping[str, Any] | None
    extra: str
    check: Callable[[Any, Any], list[Any]] | None
    enables: Callable[[Any], Iterable[str]] | None
    interpolate: bool
    check_declaration: Callable[[Any, Any], Iterable[Any]] | None
    verbatim: tuple[str, ...]
    description: str | None
    shown: bool
    defaults: bool

    def __init__(
        self,
        path: str,
        model: type[Any],
        keys: Mapping[str, Any] | None,
        extra: str,
        check: Callable[[Any, Any], list[Any]] | None = None,
        enables: Callable[[Any], Iterable[str]] | None = None,
        interpolate: bool = True,
        check_declaration: Callable[[Any, Any], Iterable[Any]] | None = None,
        verbatim: tuple[str, ...] = (),
        description: str | None = None,
        shown: bool = False,
        defaults: bool = False,
    ) -> None:
        self._fill(
            path,
            model,
            keys,
            extra,
            check,
            enables,
            interpolate,
            check_declaration,
            verbatim,
            description,
            shown,
            defaults,
        )

    @property
    def block(self) -> str:
        """``runtime``, ``deployment_state``, ``model`` or ``source``."""
        return self.path.split(".", 1)[0]

    @property
    def name(self) -> str:
        """The key of the section in its block (``flink`` for ``runtime.flink``)."""
        return self.path.split(".", 1)[1]


class InitStarter(Value):
    """A project starter ``streamt init --executor <name>`` writes, from ``streamt_init_starters``.

    * ``name`` — the ``--executor`` value that selects it (``kafka_streams``); ``flink`` is core's
      own scaffold.
    * ``title`` — how messages name it (``Kafka Streams starter``).
    * ``options`` — a zero-argument function returning the ``click.Option`` objects the starter
      reads; ``init`` lists them right after ``--executor``, and refuses them (``E900``) when
      another executor is chosen. Their values reach ``files`` by parameter name.
    * ``files`` — ``files(project_name, **options) -> {relative path: text}``: every file the
      starter writes (core adds the editor schemas and ``.gitignore``). Text only: it connects
      to nothing; a bad option is a ``StreamtError`` raised before anything is written.
    * ``data`` — extra fields of the ``init`` JSON result (``{"support": ...}``).
    """

    __slots__ = _fields = ("name", "title", "options", "files", "data")

    name: str
    title: str
    options: Callable[[], list[Any]]
    files: Callable[..., dict[str, str]]
    data: Mapping[str, Any]

    def __init__(
        self,
        name: str,
        title: str,
        options: Callable[[], list[Any]],
        files: Callable[..., dict[str, str]],
        data: Mapping[str, Any] | None = None,
    ) -> None:
        self._fill(name, title, options, files, dict(data or {}))


class PlanFileExtension(Value):
    """A field a plugin adds to the reviewed plan file, and the format version it gives the file
    (``streamt_plan_file_extensions``).

    The field binds a reviewed replacement of one artifact of ``kinds`` (the live facts the kind's
    deployer coordinates: generation, volume, offsets); ``plan --out`` writes it only when that
    replacement is the sole change of the full project, and only ``apply --plan`` runs it.

    * ``key`` — the top-level field of the plan file (``kafka_streams_replacement``).
    * ``format_version`` — the ``format_version`` of a file that carries the field (``6``). A file
      of that version must carry it and a file of any other version must not (``E408``).
    * ``kinds`` — the artifact kinds whose reviewed replacement the field binds.
    * ``description`` — one line for messages and docs.
    """

    __slots__ = _fields = ("key", "format_version", "kinds", "description")

    key: str
    format_version: int
    kinds: tuple[str, ...]
    description: str

    def __init__(self, key: str, format_version: int, kinds: tuple[str, ...], description: str = "") -> None:
        self._fill(key, format_version, tuple(kinds), description)


class RemovalKind(Value):
    """A kind of ``lifecycle`` removal tombstone a plugin owns, from ``streamt_removal_kinds``.

    A tombstone (dsl.md section 15) asks for one exact delete of a resource streamt deployed
    before. Users write it as an entry of ``lifecycle.<key>``; the plugin that registers ``key``
    says what an entry holds and compiles it into the one removal artifact its planner and
    deployer serve (``streamt.sdk.RemovalPlanner``, ``streamt.sdk.RemovalDeployer``). Core keeps
    only what every removal shares: the reviewed-plan gates, the ownership record of the prior
    artifact and the inert fulfilled no-op.

    * ``key`` — the list under ``lifecycle`` (``connector_removals``).
    * ``kind`` — the artifact kind of the tombstone; it ends in ``_removal`` and names the prior
      kind before it (``connector_removal`` removes a ``connector`` whose ownership record is
      ``streamt://<project>/<env>/connector/<logical_owner>``).
    * ``model`` — an ``attrs`` class one entry is structured into (strictly, as a
      ``ConfigSection``'s model); ``keys`` — its accepted keys, written as a ``ConfigSection``'s.
    * ``extra`` — the ``streamt`` extra that installs the plugin.
    * ``tombstone`` — ``tombstone(entry) -> Artifact``: the removal artifact of one entry, named
      after the entry's ``logical_owner`` with the removed resource's name as its identity. Pure.
    * ``check`` — ``check(entries, project) -> [Diagnostic]``: value checks of the written
      entries, run by ``validate`` (a cluster the removal cannot bind to ...).
    * ``local_state_refusal`` — ``(message, suggestion)`` of the ``E420`` core raises before any
      service is contacted when a project plans this kind on local deployment state, for a
      removal that needs a shared backend's exclusive authority; ``None`` when local state will do.
    """

    __slots__ = _fields = ("key", "kind", "model", "keys", "extra", "tombstone", "check", "local_state_refusal")

    key: str
    kind: str
    model: type[Any]
    keys: Mapping[str, Any]
    extra: str
    tombstone: Callable[[Any], Any]
    check: Callable[[tuple[Any, ...], Any], list[Any]] | None
    local_state_refusal: tuple[str, str] | None

    def __init__(
        self,
        key: str,
        kind: str,
        model: type[Any],
        keys: Mapping[str, Any],
        extra: str,
        tombstone: Callable[[Any], Any],
        check: Callable[[tuple[Any, ...], Any], list[Any]] | None = None,
        local_state_refusal: tuple[str, str] | None = None,
    ) -> None:
        self._fill(key, kind, model, keys, extra, tombstone, check, local_state_refusal)


# The families of kinds (``KnownKind.family``; see ``streamt.kinds``).
MATERIALIZATION = "materialization"
EXECUTOR = "executor"
STATE_BACKEND = "state_backend"
TEST_TYPE = "test_type"
ASSERTION = "assertion"
DISCOVERER = "discoverer"
EXPORTER = "exporter"
COMMAND = "command"
CONFIG_SECTION = "config_section"
ARTIFACT_KIND = "artifact_kind"
REMOVAL = "removal"


class KnownKind(Value):
    """A kind that a known plugin provides, and the extra that installs it (``streamt_known_kinds``).

    Not a provider: a catalog entry, so that core can name the install command
    (``E903_PLUGIN_REQUIRED``) when a project uses a known kind whose plugin is
    missing, and list the kind among the valid values.

    * ``family`` — ``materialization``, ``executor``, ``state_backend``,
      ``test_type``, ``assertion``, ``exporter``, ``command``, ``config_section`` or ``removal``.
    * ``name`` — the kind's name (for ``command``: ``<group> <name>``, or ``<name>`` at the top level; for
      ``config_section``: its path, ``runtime.flink``; for ``removal``: its ``lifecycle`` key).
    * ``extra`` — the ``streamt`` extra that installs its plugin.
    * ``description`` — one line (for ``command``: the help shown while it is missing).
    * ``capability`` — for ``command``: the capability named when it is
      missing (``postgres`` for ``state init``); empty means the extra.
    """

    __slots__ = _fields = ("family", "name", "extra", "description", "capability")

    family: str
    name: str
    extra: str
    description: str
    capability: str

    def __init__(self, family: str, name: str, extra: str, description: str = "", capability: str = "") -> None:
        self._fill(family, name, extra, description, capability)
