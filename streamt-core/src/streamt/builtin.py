"""Core's own behaviour, registered as a plugin on the same manager.

Core uses its own hooks: the core commands are added through
``streamt_commands`` exactly as a plugin would add its own, and the embedded
``local`` state backend is offered through ``streamt_state_backends``.
"""

from __future__ import annotations

from typing import Any

from streamt import hookimpl

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
    "impact": ("streamt.commands.impact:impact_command", "Explain the downstream impact of changes between Git refs."),
    "status": ("streamt.commands.status:status_command", "Check deployment status of managed resources."),
    "adopt": ("streamt.commands.adopt:adopt_command", "Claim an existing declared resource for lifecycle management."),
    "test": ("streamt.commands.test:test_command", "Run data quality tests."),
    "lineage": ("streamt.commands.lineage:lineage", "Display data lineage and dependencies."),
    "list": ("streamt.commands.list_cmd:list_", "List project resources by type."),
    "show": ("streamt.commands.list_cmd:show", "Show detailed information about a single resource."),
    "observe": ("streamt.commands.observe:observe", "Show live runtime health."),
    "plugins": ("streamt.commands.plugins:plugins_command", "List installed plugins, their versions and hooks."),
}

GROUPS: dict[str, str] = {
    "docs": "Generate project documentation and interoperability metadata.",
    "envs": "Manage and inspect environments (multi-environment mode).",
    "export": "Generate deterministic infrastructure artifacts without applying them.",
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

# Subcommands that plugins provide; core names the extra when one is missing.
EXPECTED: dict[str, dict[str, tuple[str, str]]] = {
    "export": {"strimzi": ("strimzi", "Export managed topics as Strimzi KafkaTopic YAML.")},
    "docs": {
        "asyncapi": ("asyncapi", "Generate an AsyncAPI 3.1 document."),
        "openapi": ("asyncapi", "Deprecated alias of docs asyncapi."),
        "odcs": ("odcs", "Generate an ODCS 3.1.0 data contract."),
        "backstage": ("backstage", "Export Backstage Software Catalog entities."),
        "datahub": ("datahub", "Export DataHub metadata-change proposals."),
        "openlineage": ("openlineage", "Export OpenLineage design metadata."),
    },
    "state": {
        "init": ("postgres", "Initialize configured PostgreSQL state."),
        "migrate-postgres-v2": ("postgres", "Migrate PostgreSQL state to schema v2."),
        "lock-status": ("postgres", "Probe PostgreSQL lock availability."),
        "runner-status": ("kafka_streams", "Inspect one Kafka Streams replacement."),
        "resume": ("kafka_streams", "Continue one interrupted Kafka Streams replacement."),
    },
    "runtime": {"build": ("kafka_streams", "Build the packaged Kafka Streams runner image.")},
}


@hookimpl(tryfirst=True)
def streamt_commands(cli: Any) -> None:
    for name, (path, help_text) in CORE_COMMANDS.items():
        cli.add_lazy_command(name, path, help_text)
    for group_name, help_text in GROUPS.items():
        group = cli.add_group(group_name, help_text)
        for name, (path, sub_help) in GROUP_COMMANDS.get(group_name, {}).items():
            group.add_lazy_command(name, path, sub_help)
        for name, (capability, sub_help) in EXPECTED.get(group_name, {}).items():
            group.expect(name, capability, sub_help)


@hookimpl
def streamt_state_backends() -> list[Any]:
    from streamt.capabilities import StateBackend
    from streamt.state.selection import local_factory

    return [
        StateBackend(
            name="local", description="Embedded single-user state under .streamt/state/", factory=local_factory
        )
    ]
