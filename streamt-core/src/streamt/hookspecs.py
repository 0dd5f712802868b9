"""The contract between streamt-core and its plugins.

A plugin is a module (or object) exposed under the entry-point group
``streamt``::

    [project.entry-points.streamt]
    myplugin = "my_package.plugin"

and implements any of the hooks below with the ``hookimpl`` marker::

    from streamt import hookimpl

    @hookimpl
    def streamt_materializations():
        return [Materialization(name="lake", description="...", extra="my-lake")]

Rules that hold for every hook:

* Hooks are called with keyword arguments; an implementation may accept a
  subset of the declared arguments (pluggy passes only what it names).
* Every hook that returns something returns a *list* (or ``None`` when the
  plugin has nothing to contribute). Core concatenates the lists of all
  plugins in registration order; it never relies on one plugin's answer.
* Hooks must be cheap to call and must not import heavy dependencies at
  module import time: the CLI loads every plugin to build ``--help``. Import
  clients (kafka-python, psycopg2, docker, ...) inside the functions that need
  them.
* A hook raises ``streamt.sdk.StreamtError`` for an expected failure; it
  never prints. Anything else it raises is reported as ``E999_INTERNAL_ERROR``
  naming the plugin.
* Secrets (passwords, DSNs, tokens, raw provider errors) never appear in a
  returned diagnostic, artifact, observation or exported document.

Objects that serve a kind (observers, planners and deployers by artifact kind,
artifact kinds themselves, state backends, materializations, test types,
discoverers) follow one rule: one kind, one provider. Two plugins claiming the same kind is
``E906_PLUGIN_CONFLICT`` naming both, and neither is used (``streamt.kinds``);
a name core or a plugin streamt ships holds stays theirs, and the claim on it
is refused with ``E906`` (``streamt.claims``). Command paths are claims too.

The names of hooks start with ``streamt_``; pluggy refuses an implementation
whose name matches no spec, and the loader then reports the plugin as
``E901_PLUGIN_LOAD_FAILED`` and carries on without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    # Only for type checkers (as tox 4's plugin/spec.py does): importing these
    # at run time would load the project model for every ``--help``.
    from streamt.artifacts import Artifact
    from streamt.capabilities import (
        ArtifactKind,
        AssertionKind,
        ConfigSection,
        Exporter,
        InitStarter,
        KnownKind,
        Materialization,
        PlanFileExtension,
        RemovalKind,
        TestType,
    )
    from streamt.capabilities import StateBackend as StateBackendRegistration
    from streamt.cli.lazy import LazyGroup
    from streamt.docs_site.extensions import DocsNodeDetail, DocsPage
    from streamt.errors import Diagnostic, ErrorCode
    from streamt.project.model import Notice, Project, Runtime
    from streamt.sdk.protocols import Declaration, Deployer, DiscoverySource, Observer, Planner, RuntimeReader
    from streamt.testrun.protocol import TestRunner

hookspec = pluggy.HookspecMarker("streamt")


@hookspec
def streamt_error_codes() -> list[ErrorCode] | None:
    """Declare the plugin's own error and warning codes.

    Return a list of ``streamt.sdk.ErrorCode`` (``code`` matching
    ``[EW]NNN_NAME``, a one-line ``meaning`` and ``owner`` = your
    distribution name). Core registers them before any other hook runs so
    that diagnostics can use them. Redefining a core code is refused.
    Prefer the core codes: add one only for a failure no core code describes.
    """


@hookspec
def streamt_materializations() -> list[Materialization] | None:
    """Declare the materializations and runtime sections this plugin compiles.

    Return a list of ``streamt.sdk.Materialization``: ``name`` as
    written in a model's ``materialized:`` (``topic``, ``flink``, ``sink``,
    ``virtual_topic``) or an executor (``kafka_streams``), the
    ``runtime_sections`` it owns (``runtime.flink``), and the ``extra`` that
    installs it (``flink`` for ``pip install 'streamt[flink]'``). Core uses
    this to tell users which extra to install when a project needs a
    materialization that no installed plugin provides.
    """


@hookspec
def streamt_artifact_kinds() -> list[ArtifactKind] | None:
    """Register the artifact kinds this plugin compiles, and which declarations produce them.

    Return a list of ``streamt.sdk.ArtifactKind``, one per ``Artifact.kind`` your
    ``streamt_compile`` returns that is yours::

        @hookimpl
        def streamt_artifact_kinds():
            return [ArtifactKind(name="lake_table", directory="lake", manifest_key="lake_tables",
                                 rank=45, title="Lake Tables", materializations=("lake_table",))]

    Core reads nothing else to lay kinds out and order them: files go under ``directory`` (named
    after the artifact's identity, or its declaration with ``named_by="name"``), the manifest lists
    them under ``artifacts.<manifest_key>`` (an empty list when there are none), and ``rank``
    orders them when no ``depends_on`` decides (lower first; an unregistered kind ranks 100 and
    goes under ``<kind>/``).

    The registration also says which declarations your compiler wants: core sends a source, model
    or test to your ``streamt_compile`` only when it produces one of your kinds — a model
    materialized as one of ``materializations``, a ``topic`` model with SQL whose ``executor:`` is
    one of ``executors``, a test whose type is one of ``test_types``, a source when ``sources``
    is true (``streamt.sdk.produces(kind, declaration)`` answers it). You may still return
    artifacts of another plugin's kind for a declaration you receive (a Flink test's failures
    topic). A plugin that implements ``streamt_compile`` but not this hook receives every
    declaration, as before this hook existed.

    One kind, one provider: two plugins registering one name, or two plugins' kinds sharing a
    ``manifest_key``, is ``E906_PLUGIN_CONFLICT`` naming both, and a compile that needs the kind
    fails with it. An invalid registration (a directory leaving the output directory, a rank
    that is not an integer) is ``E901`` and is ignored. Return constants: called once per plugin
    set, on the first compile or plan.
    """


@hookspec
def streamt_config_sections() -> list[ConfigSection] | None:
    """Declare the configuration sections this plugin owns (``runtime.flink``, ``deployment_state.postgres``).

    Return a list of ``streamt.sdk.ConfigSection``: the section's ``path``, the
    ``attrs`` class it is structured into, its accepted ``keys``, the ``extra``
    that installs the plugin and optional ``check`` / ``enables`` /
    ``check_declaration`` functions. Core checks the keys and types while
    loading the project (``E501`` at the position, ``W401`` for an unknown key
    in legacy mode), runs ``check_declaration`` for every model and test and
    ``check`` for the written section during ``validate``, and keeps the structured value in
    ``project.runtime.sections[name]`` (``project.deployment_state.sections``
    for ``deployment_state.*``); core itself never reads it. A section no
    installed plugin claims is kept as a read-only mapping of what was written,
    and ``validate`` reports ``E903_PLUGIN_REQUIRED`` when the known-kinds
    catalog names its plugin (family ``config_section``). Two plugins claiming
    one path is ``E906_PLUGIN_CONFLICT``. Called on every load: keep it cheap.
    """


@hookspec
def streamt_init_starters() -> list[InitStarter] | None:
    """Declare the project starters ``streamt init --executor <name>`` can write.

    Return a list of ``streamt.sdk.InitStarter``. Core's ``init`` offers each ``name`` as a
    value of ``--executor`` (next to its own ``flink`` scaffold), adds the starter's
    ``options()`` after ``--executor`` in the order given, and, when the starter is chosen,
    writes exactly the files ``files(project_name, **options)`` returns, plus the editor
    schemas and ``.gitignore`` every project gets, atomically and only when none exists
    (``--force`` overwrites). ``--dry-run`` lists them without writing. A starter cannot be
    combined with ``--discover`` (``E900``), and its options are refused with any other
    executor (``E900``). ``files`` must be pure text work: it never contacts a service and
    raises ``StreamtError`` (``E900``/``E501``) for a bad option before anything is written.
    Called only by ``init`` (not for ``--help`` of other commands); two plugins declaring one
    name is ``E906``.
    """


@hookspec
def streamt_plan_file_extensions() -> list[PlanFileExtension] | None:
    """Declare the fields this plugin adds to the reviewed plan file, each with its format version.

    Return a list of ``streamt.sdk.PlanFileExtension``. The plan file is core's (format 5:
    canonical JSON under an integrity checksum, see ``streamt.plan.planfile``); an extension is
    one more top-level field, covered by the same checksum, whose presence gives the file its own
    ``format_version`` (the Kafka Streams runner's ``kafka_streams_replacement`` is format 6).
    Core writes the field when ``plan --out`` saves a reviewed replacement of an artifact of the
    extension's ``kinds`` that is the sole change of the full project (its body: the planner's
    ``replacement`` evidence plus the deployer's ``prepare_replacement`` facts), reads it back
    for ``apply --plan`` and hands it to that kind's deployer (``replace``) instead of the
    generic executor. ``read_plan_file`` accepts format 5 and every registered version, and
    refuses (``E408``) a file whose version and field disagree; without the plugin installed a
    file of its version is refused as an unsupported format. Keep ``key`` and
    ``format_version`` stable across releases: plan files written before must still load.
    Two plugins claiming one key is ``E906``.
    """


@hookspec
def streamt_removal_kinds() -> list[RemovalKind] | None:
    """Declare the ``lifecycle`` removal tombstones this plugin owns (``lifecycle.connector_removals``).

    A tombstone is how a user asks streamt to delete a resource it deployed before: removing a
    declaration never deletes anything (dsl.md section 15). Return a list of
    ``streamt.sdk.RemovalKind``, one per list under ``lifecycle:``: its ``key``, the removal
    artifact ``kind`` (``<prior kind>_removal``), the ``attrs`` ``model`` and accepted ``keys``
    of one entry, and ``tombstone(entry) -> Artifact``. Core checks and structures the entries
    while loading (an unknown key is ``E501``/``W401`` at its position, as anywhere else), keeps
    them in ``project.lifecycle`` (``project.lifecycle.entries(key)``), runs ``check`` during
    ``validate`` and adds one artifact per entry to every full compile. Everything else is core's
    and the same for every kind: offline plans and ``apply --plan --dry-run`` are refused
    (``E418``), the tombstone is planned against the *prior* artifact's ownership record, a
    direct apply proceeds only when every tombstone is a fulfilled no-op
    (``streamt.sdk.TOMBSTONE_FULFILLED``), and the delete needs a reviewed plan and ``--force``.

    The plugin serves the kind like any other: an observer, a planner and a deployer in
    ``streamt_observers``/``streamt_planners``/``streamt_deployers``, best built on
    ``streamt.sdk.RemovalPlanner`` and ``streamt.sdk.RemovalDeployer``, which hold the shared
    decisions (fulfilled no-op, unowned and drifted blockers, one DELETE action bound to the
    reviewed evidence, never retried, never rolled back, absence confirmed). Two plugins claiming
    one key is ``E906``. Called on every load: keep it cheap.
    """


@hookspec
def streamt_validate(project: Project, env: str) -> list[Diagnostic | Notice] | None:
    """Return plugin-specific diagnostics for a loaded project.

    ``project`` is the immutable ``streamt.sdk.Project`` already checked by
    core (names, references, cycles, governance); ``env`` is the effective
    environment name (``default`` in single-environment projects). Return a
    list of ``streamt.sdk.Diagnostic`` — errors such as
    ``E202_FLINK_REQUIRED`` for models your plugin compiles, warnings such as
    ``W101_STATE_TTL_RECOMMENDED`` — and ``streamt.sdk.Notice`` objects for
    advice without a seed code (reported under ``data.notices``, never failing
    ``--strict``). Look only at declarations your plugin owns. Must not
    contact any service.
    """


@hookspec
def streamt_compile(project: Project, declaration: Declaration, env: str) -> list[Artifact] | None:
    """Compile one declaration (source, model or test) into artifacts.

    Core walks the DAG in dependency order and calls this hook once per
    declaration, of the plugins that registered a kind the declaration
    produces (``streamt_artifact_kinds``; a plugin that registers no kind
    sees every declaration and returns ``[]`` for those it does not own).
    Return ``streamt.sdk.Artifact`` objects whose ``spec`` is canonical
    JSON-compatible data: same inputs, same bytes. Core computes the
    checksum, orders artifacts and writes files; a plugin never writes files.
    Must not contact any service.
    """


@hookspec
def streamt_observers(runtime: Runtime) -> list[Observer] | None:
    """Return observers that read live state for artifact kinds.

    ``runtime`` is the effective ``runtime`` configuration of the target
    environment (secrets resolved in memory only). An observer declares the
    ``kinds`` it handles and an ``observe(artifacts)`` method that reads all of
    them in a constant number of batched requests and returns one
    ``Observation`` per artifact (absent, present with a normalized spec, or
    unavailable). Observers are read-only. Construct clients lazily: an
    observer is created even when no artifact of its kind is planned.
    """


@hookspec
def streamt_planners() -> list[Planner] | None:
    """Return planners, one per artifact kind.

    A planner turns (desired artifact, observation, ownership record) into
    ordered ``Action`` objects (create / update / noop / delete / adopt) with
    evidence, and ``SafetyBlocker`` objects for changes that may be reviewed
    but not applied (partition reduction, incompatible schema, Flink job
    update). Planners are pure functions of their inputs.
    """


@hookspec
def streamt_deployers(runtime: Runtime) -> list[Deployer] | None:
    """Return deployers that execute actions for artifact kinds.

    A deployer executes exactly one action at a time and reports the outcome
    precisely: done, failed before any mutation, or unknown. When the truth is
    unknown it must say so — core then keeps a recovery marker instead of
    guessing. Deployers never retry a mutation whose outcome is unknown.
    """


@hookspec
def streamt_state_backends() -> list[StateBackendRegistration] | None:
    """Return deployment-state backends by name.

    Core registers ``local`` itself (the embedded single-user backend). A
    backend provides locking, ownership-state reads and atomic commits for one
    ``streamt-state://<namespace>/<project>/<env>`` address. Selection comes
    only from ``deployment_state.backend`` in configuration; core never falls
    back from a configured backend to another one.
    """


@hookspec
def streamt_exporters() -> list[Exporter] | None:
    """Return exporters mounted as CLI commands.

    Each ``streamt.sdk.Exporter`` names the group it belongs to
    (``export`` or ``docs``), its command name and a zero-argument factory
    returning a ``click.Command`` whose callback returns a
    ``streamt.sdk.Result``; ``--help`` lists the description and the factory
    is called only when the command runs. Exporters read the dry-run compiled
    project; they never contact services. Output files are written atomically
    with ``streamt.sdk.write_output_file``.
    """


@hookspec
def streamt_source_discoverers(runtime: Runtime) -> list[DiscoverySource] | None:
    """Return read-only discoverers of existing sources.

    Used by ``import`` and ``init --discover``, which take the discoverer of
    artifact kind ``topic`` (a discoverer names its ``kinds``; the protocol is
    ``streamt.sdk.DiscoverySource``). A discoverer lists existing
    resources (topics and their schema subjects) matching include/exclude
    globs and returns declarations with provenance and completeness. It never
    creates or changes anything.
    """


@hookspec
def streamt_commands(cli: LazyGroup) -> None:
    """Add plugin-owned commands to the CLI.

    ``cli`` is the root ``click.Group``. Add top-level commands with
    ``cli.add_command(cmd)`` or subcommands to an existing group, e.g.
    ``cli.commands["state"].add_command(init_cmd)``. A path that core or another
    plugin already holds is put back as it was and the claim is ``E906``
    (``streamt.cli.command_claims``). Command callbacks return a
    ``streamt.sdk.Result``; core renders it. Keep this hook fast: define
    the command here, import heavy modules inside its callback, or mount a
    command module by import path with ``group.add_lazy_command(name,
    "pkg.module:command", help_text, shorten=True)`` so that ``--help``
    imports nothing of it.
    """


@hookspec
def streamt_test_runners(runtime: Runtime) -> list[TestRunner] | None:
    """Return the runners that execute ``streamt test`` for test types.

    ``runtime`` is the effective ``runtime`` configuration of the target
    environment (secrets resolved in memory only). Each runner satisfies
    ``streamt.testrun.TestRunner``: a ``type`` (``schema``, ``sample`` or
    ``continuous``) and ``run(cases)``, which receives every selected
    ``TestCase`` of that type at once (so one client can serve them all) and
    returns one ``RunnerReport`` per case name. Core has already selected and
    ordered the tests, and removed the assertions the type does not evaluate
    (reported as skipped); the runner evaluates the rest and never decides
    severity, actions or the exit code. Runners only read: they never commit
    consumer offsets or change a resource. Build clients lazily inside ``run``.
    A failure of the whole runner is a ``StreamtError``; a failure of one test
    is its report's ``error``. A type that two plugins both claim is not run:
    its tests report the conflict instead of one plugin silently winning.
    """


@hookspec
def streamt_test_types() -> list[TestType] | None:
    """Declare the test types (``tests[].type``) this plugin evaluates.

    Return a list of ``streamt.sdk.TestType``. ``validate`` accepts a test
    type when an installed plugin declares it; a known type whose plugin is
    missing names the extra to install, an unknown one gets a did-you-mean.
    """


@hookspec
def streamt_assertion_kinds() -> list[AssertionKind] | None:
    """Declare the assertion kinds (keys of ``tests[].assertions`` items) this plugin evaluates.

    Return a list of ``streamt.sdk.AssertionKind``.
    """


@hookspec
def streamt_known_kinds() -> list[KnownKind] | None:
    """Declare kinds that a *known* plugin provides, and the extra that installs it.

    A catalog, not a provider: core uses it to list valid values and to say
    ``pip install 'streamt[<extra>]'`` (``E903_PLUGIN_REQUIRED``) when a
    project uses a known kind whose plugin is not installed. Core declares the
    kinds of the streamt distributions this way; a platform team may declare
    the kinds of its own internal plugins.
    """


@hookspec
def streamt_docs_site(project: Project) -> list[DocsPage | DocsNodeDetail] | None:
    """Add pages or resource details to the ``docs generate`` HTML site.

    Return ``streamt.docs_site.DocsPage`` objects (an extra page, linked from
    the index) and ``streamt.docs_site.DocsNodeDetail`` objects (a section on
    one source, model, test or exposure page). Contributions are text, never
    markup: core escapes every string. Read only the loaded project; contact
    no service, so the same project always gives the same site bytes.
    """


@hookspec
def streamt_runtime_readers(runtime: Runtime) -> list[RuntimeReader] | None:
    """Return readers of live runtime health for ``streamt observe``.

    A reader declares the artifact ``kinds`` it handles and
    ``read(artifacts) -> {identity: {...}}``: for every artifact a ``state``
    (``RUNNING``, ``OK``, ``MISSING``, ...), ``healthy`` (bool) and metrics
    whose key names carry their unit (``lag_messages``,
    ``records_in_per_second``, ``last_checkpoint_age_seconds``). It reads all
    its artifacts in a bounded number of batched requests (never one per
    consumer group), changes nothing, and raises ``StreamtError`` (E404/E406,
    secret-free) when its service cannot be read. A kind without a reader
    falls back to its observer's ``runtime_status``.
    """
