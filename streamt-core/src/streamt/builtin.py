"""Core's own behaviour, registered as a plugin on the same manager.

Core uses its own hooks: the core commands are added through
``streamt_commands`` exactly as a plugin would add its own, the embedded
``local`` state backend is offered through ``streamt_state_backends``, and the
catalog of kinds the streamt distributions provide through ``streamt_known_kinds``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamt import hookimpl
from streamt.capabilities import (
    ASSERTION,
    COMMAND,
    CONFIG_SECTION,
    DISCOVERER,
    EXECUTOR,
    EXPORTER,
    MATERIALIZATION,
    REMOVAL,
    STATE_BACKEND,
    TEST_TYPE,
    KnownKind,
    StateBackend,
)

if TYPE_CHECKING:
    from pathlib import Path

# name -> (import path, one-line help). Modules are imported only when the
# command runs, which keeps `streamt --help` fast.
CORE_COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("streamt.commands.init:init", "Initialize a new streamt project."),
    "import": ("streamt.commands.import_cmd:import_command", "Declare existing Kafka topics as external sources."),
    "validate": ("streamt.commands.validate:validate", "Validate project configuration, syntax and governance rules."),
    "compile": ("streamt.commands.compile:compile_command", "Parse, validate and generate deployment artifacts."),
    "build": ("streamt.commands.build:build_command", "Compile and package artifacts with manifest and checksums."),
    "plan": ("streamt.commands.plan:plan_command", "Show planned changes without applying them."),
    "apply": ("streamt.commands.apply:apply_command", "Deploy artifacts to infrastructure."),
    "diff": ("streamt.commands.diff:diff_command", "Compare local definitions against deployed state."),
    "status": ("streamt.commands.status:status_command", "Check deployment status of managed resources."),
    "adopt": ("streamt.commands.adopt:adopt_command", "Claim an existing declared resource for lifecycle management."),
    "test": ("streamt.commands.test:test_command", "Run data quality tests."),
    "lineage": ("streamt.commands.lineage:lineage", "Display data lineage and dependencies."),
    "list": ("streamt.commands.list_cmd:list_", "List project resources by type."),
    "show": ("streamt.commands.list_cmd:show", "Show detailed information about a single resource."),
    "observe": ("streamt.commands.observe:observe", "Show live runtime health."),
    "plugins": (
        "streamt.commands.plugins:plugins_command",
        "List installed plugins, their versions, hooks and what each provides.",
    ),
    "schema": ("streamt.commands.schema:schema_command", "Print the JSON Schema of the project files."),
}

GROUPS: dict[str, str] = {
    "docs": "Generate project documentation and interoperability metadata.",
    "envs": "Manage and inspect environments (multi-environment mode).",
    "export": "Generate deterministic infrastructure artifacts without applying them.",
    "plugin": "Write new plugins.",
    "runtime": "Build and inspect packaged runtimes.",
    "state": "Inspect and administer deployment state.",
}

GROUP_COMMANDS: dict[str, dict[str, tuple[str, str]]] = {
    "docs": {
        "dictionary": (
            "streamt.commands.docs_dictionary:docs_dictionary",
            "Export a data dictionary of sources and models.",
        ),
        "generate": ("streamt.commands.docs_generate:docs_generate", "Generate an HTML documentation site."),
    },
    "envs": {
        "list": ("streamt.commands.envs:envs_list", "List available environments."),
        "show": (
            "streamt.commands.envs:envs_show",
            "Show resolved configuration for an environment (secrets masked).",
        ),
    },
    "plugin": {
        "new": ("streamt.commands.plugin_new:plugin_new", "Write a new plugin distribution to start from."),
    },
    "state": {
        "status": (
            "streamt.commands.state_status:state_status_command",
            "Inspect ownership and operation-control metadata.",
        ),
        "recovery-plan": (
            "streamt.commands.state_recovery:recovery_plan_command",
            "Create reviewed evidence for one unfinished operation.",
        ),
        "recover": ("streamt.commands.state_recovery:recover_command", "Execute one exact reviewed recovery."),
    },
}


def _commands(group: str, capability: str, extra: str, commands: dict[str, str]) -> tuple[KnownKind, ...]:
    return tuple(
        KnownKind(COMMAND, f"{group} {name}", extra, description, capability) for name, description in commands.items()
    )


# The catalog of kinds the streamt distributions provide, and the extra that
# installs each: data, not logic. Core lists known kinds among the valid values
# and names the install command when a project uses one whose plugin is missing.
KNOWN_KINDS: tuple[KnownKind, ...] = (
    *(KnownKind(MATERIALIZATION, name, extra) for name, extra in (
        ("topic", "kafka"), ("virtual_topic", "gateway"), ("flink", "flink"), ("sink", "connect"),
    )),
    KnownKind(EXECUTOR, "flink", "flink"),
    KnownKind(EXECUTOR, "kafka_streams", "kstreams"),
    KnownKind(STATE_BACKEND, "local", "", "Embedded single-user state under .streamt/state/"),
    KnownKind(STATE_BACKEND, "postgres", "postgres", "Shared PostgreSQL state"),
    *(KnownKind(TEST_TYPE, name, extra) for name, extra in (
        ("schema", "kafka"), ("sample", "kafka"), ("continuous", "flink"),
    )),
    *(KnownKind(ASSERTION, name, "") for name in (
        "not_null", "accepted_values", "accepted_types", "range", "unique_key", "max_lag", "throughput",
        "distribution", "foreign_key", "custom_sql", "unique", "expression",
    )),
    KnownKind(DISCOVERER, "topic", "kafka"),
    *(KnownKind(CONFIG_SECTION, path, extra) for path, extra in (
        ("runtime.flink", "flink"), ("runtime.conduktor", "gateway"), ("runtime.connect", "connect"),
        ("runtime.kafka_streams", "kstreams"), ("deployment_state.postgres", "postgres"),
        ("model.flink", "flink"), ("model.flink_cluster", "flink"), ("model.gateway", "gateway"),
        ("model.sink", "connect"), ("model.connect_cluster", "connect"), ("source.format", "flink"),
    )),
    *(KnownKind(REMOVAL, key, extra) for key, extra in (
        ("gateway_rule_removals", "gateway"), ("connector_removals", "connect"),
    )),
    *(KnownKind(EXPORTER, name, "exporters") for name in (
        "strimzi", "odcs", "datahub", "backstage", "openlineage", "asyncapi",
    )),
    *_commands("export", "strimzi", "exporters", {"strimzi": "Export managed topics as Strimzi KafkaTopic YAML."}),
    *_commands("docs", "asyncapi", "exporters", {
        "asyncapi": "Generate an AsyncAPI 3.1 document.", "openapi": "Deprecated alias of docs asyncapi.",
    }),
    *_commands("docs", "odcs", "exporters", {"odcs": "Generate an ODCS 3.1.0 data contract."}),
    *_commands("docs", "backstage", "exporters", {"backstage": "Export Backstage Software Catalog entities."}),
    *_commands("docs", "datahub", "exporters", {"datahub": "Export DataHub metadata-change proposals."}),
    *_commands("docs", "openlineage", "exporters", {"openlineage": "Export OpenLineage design metadata."}),
    *_commands("state", "postgres", "postgres", {
        "init": "Initialize configured PostgreSQL state.",
        "migrate-postgres-v2": "Migrate PostgreSQL state to schema v2.",
        "lock-status": "Probe PostgreSQL lock availability.",
    }),
    *_commands("state", "kafka_streams", "kstreams", {
        "runner-status": "Inspect one Kafka Streams replacement.",
        "resume": "Continue one interrupted Kafka Streams replacement.",
    }),
    *_commands("runtime", "kafka_streams", "kstreams", {"build": "Build the packaged Kafka Streams runner image."}),
    KnownKind(COMMAND, "impact", "impact", "Explain the downstream impact of changes between Git refs."),
)  # fmt: skip


# The distributions of the `streamt` extras: the plugins streamt ships. Like core, each holds the
# names it claims (commands, kinds, sections) against any other plugin (``streamt.claims``).
FIRST_PARTY: dict[str, tuple[str, ...]] = {
    "kafka": ("streamt-kafka",),
    "flink": ("streamt-flink",),
    "connect": ("streamt-connect",),
    "gateway": ("streamt-gateway",),
    "kstreams": ("streamt-kstreams",),
    "postgres": ("streamt-postgres-state",),
    "impact": ("streamt-impact",),
    "exporters": tuple(
        f"streamt-exporter-{name}" for name in ("strimzi", "odcs", "datahub", "backstage", "openlineage", "asyncapi")
    ),
}


@hookimpl(tryfirst=True)
def streamt_commands(cli: Any) -> None:
    for name, (path, help_text) in CORE_COMMANDS.items():
        cli.add_lazy_command(name, path, help_text)
    for group_name, help_text in GROUPS.items():
        group = cli.add_group(group_name, help_text)
        for name, (path, sub_help) in GROUP_COMMANDS.get(group_name, {}).items():
            group.add_lazy_command(name, path, sub_help)


@hookimpl
def streamt_known_kinds() -> list[KnownKind]:
    return list(KNOWN_KINDS)


@hookimpl
def streamt_state_backends() -> list[StateBackend]:
    return [
        StateBackend(
            name="local", description="Embedded single-user state under .streamt/state/", factory=_local_factory
        )
    ]


def _local_factory(*, project: Any, project_dir: Path, purpose: str) -> Any:
    # Imported here, not at the top: the CLI imports this module on every start.
    from streamt.state.local import local_backend

    return local_backend(project=project, project_dir=project_dir, purpose=purpose)
