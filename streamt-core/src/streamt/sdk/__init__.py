"""``streamt.sdk``: the one public import surface for plugin authors.

Everything a plugin needs is importable from here::

    from streamt.sdk import hookimpl, Artifact, Materialization, Observation, Action, Outcome

and everything *not* exported here is private to streamt-core: its module
layout may change in any release. The names fall into five groups:

* **Hooks** — ``hookimpl`` marks an implementation of one of the hooks in
  ``streamt.hookspecs`` (the hook contract, typed with the names below).
* **Registrations** — what capability hooks return: ``Materialization``,
  ``ArtifactKind``, ``Exporter``, ``StateBackendRegistration``, ``TestType``,
  ``AssertionKind``, ``KnownKind``, ``ConfigSection``, ``RemovalKind``, ``InitStarter``,
  ``PlanFileExtension``, ``ErrorCode``.
* **Protocols** — the objects hooks return (``streamt.sdk.protocols``):
  ``Compiler``, ``Validator``, ``Observer``, ``Planner`` (``AdvisingPlanner``, ``IdentityPlanner``), ``Deployer``,
  ``StateBackend`` (including the recovery methods), ``StateBackendFactory``,
  ``DiscoverySource``, ``CommandFactory``.
* **Values** — what those objects exchange with core: the project read view
  (``Project``, ``Model``, ``Source``, ``Test``, ``Exposure``, ``Column``,
  ``Ref``, ``Runtime``, ``Notice``), ``Artifact``, ``Observation``,
  ``Action``, ``Advice``, ``SafetyBlocker``, ``Outcome``, ``OwnershipRecord``,
  ``OwnershipState``, ``OperationControl``, ``Diagnostic``, ``Codes``,
  ``StreamtError``, ``Result``, ``TopicMetadata``,
  ``SchemaLookup``, ``Enrichment``, and the constants that name their states.
* **Reading projects** — for a command that reads declarations itself (``streamt impact``
  compares two): ``PROJECT_FILES``, ``DECLARATION_DIRS``, ``MAX_PROJECT_FILE_BYTES``,
  ``ENVIRONMENT_ENV``, the lineage ``Graph`` (``build_graph``, ``select``), SQL reading
  (``column_lineage``, ``projection``, ``referenced_columns``, ``where_clause``), ``is_secret_name``,
  ``is_removal``, what the installed plugins register (``produced_kinds``, ``installed_planners``)
  and ``to_json_text``.

The registrations, ``ErrorCode``, ``Diagnostic`` and ``Result`` are plain immutable classes
(``streamt.values``), not ``attrs`` classes, because every start of the CLI imports them:
``replace(value, field=...)`` copies one with changes (where ``attrs.evolve`` served before).

Importing ``streamt.sdk`` is cheap: names are resolved on first use (PEP 562),
so a plugin module may import from it at the top without slowing down
``streamt --help``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from streamt import __version__, hookimpl

if TYPE_CHECKING:
    from streamt.apply.gates import check_confirm_env, confirm, require_remote_state
    from streamt.apply.outcome import DONE, FAILED, OK, UNKNOWN, Outcome
    from streamt.apply.replacement import require_receipts, reviewed_verifier
    from streamt.apply.review import verify_bindings
    from streamt.artifact_kinds import produced_kinds, produces
    from streamt.artifacts import Artifact, canonical_json, sha256_checksum
    from streamt.boundary import boundary
    from streamt.bounded_http import (
        MAX_DEPTH,
        BoundedAdapter,
        DeadlineExceeded,
        ResponseInvalid,
        bounded_error,
        bounded_session,
        capped_deadline,
        json_body,
        json_depth,
        json_or_none,
        watched_pool,
    )
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
    from streamt.cli.options import env_option, project_dir_option, project_options, quiet_option
    from streamt.compile.engine import CompiledProject
    from streamt.compile.loading import Loaded, load_and_compile, validate_and_compile
    from streamt.compile.physical import Physical, physical_resources
    from streamt.dag import Graph, build_graph
    from streamt.dag import Node as GraphNode
    from streamt.discovery.model import (
        NOT_FOUND,
        NOT_REQUESTED,
        RESOLVED,
        SKIPPED_AFTER_OUTAGE,
        Enrichment,
        SchemaLookup,
        TopicMetadata,
    )
    from streamt.errors import Codes, Diagnostic, ErrorCode, StreamtError, did_you_mean
    from streamt.exporting import document_result, failure_result, write_output_file
    from streamt.fsutil import atomic_write, create_exclusive
    from streamt.http_outcome import (
        MaybeSent,
        auth_refused,
        code_for_status,
        never_sent,
        refused_before_change,
        write_outcome,
    )
    from streamt.json_output import to_json_text
    from streamt.kind_names import (
        KIND_CONNECTOR,
        KIND_CONNECTOR_REMOVAL,
        KIND_FLINK_JOB,
        KIND_GATEWAY_RULE,
        KIND_GATEWAY_RULE_REMOVAL,
        KIND_KAFKA_STREAMS_JOB,
        KIND_SCHEMA,
        KIND_TEST_JOB,
        KIND_TOPIC,
    )
    from streamt.kinds import installed_planners
    from streamt.log import RequestLog, provider_request
    from streamt.pending import pending_command
    from streamt.plan.engine import project_bindings
    from streamt.plan.model import (
        ABSENT,
        ADOPT,
        ASSUMED_ABSENT,
        CREATE,
        DELETE,
        NOOP,
        PRESENT,
        UNAVAILABLE,
        UPDATE,
        Action,
        Advice,
        AppliedRecord,
        Observation,
        SafetyBlocker,
        blocked_update,
    )
    from streamt.plan.online import open_backend
    from streamt.plan.planfile import read_plan_file, require_authorizing
    from streamt.plan.tombstones import TOMBSTONE_FULFILLED, is_removal
    from streamt.progress import Progress, Silent, Step, for_command, phase
    from streamt.project.environments import ENV_VAR as ENVIRONMENT_ENV
    from streamt.project.interpolation import has_placeholder, missing_error, substitute
    from streamt.project.loader import DECLARATION_DIRS, PROJECT_FILES, load_project
    from streamt.project.model import Column, Exposure, Model, Notice, Project, Runtime, Source, Test, model_section
    from streamt.project.yaml_io import MAX_FILE_BYTES as MAX_PROJECT_FILE_BYTES
    from streamt.recovery.targets import CANDIDATE, PRIOR
    from streamt.redact import is_secret_name
    from streamt.refs import Ref
    from streamt.result import Result
    from streamt.runlineage.namespaces import (
        GATEWAY_NAMESPACE_ENV,
        JOB_NAMESPACE_ENV,
        KAFKA_NAMESPACE_ENV,
        derive_kafka_uri,
        is_kafka_uri,
        job_namespace_problem,
    )
    from streamt.sdk.protocols import (
        AdoptionAttributesObserver,
        AdoptionObserver,
        AdoptionPendingObserver,
        AdvisingPlanner,
        BatchingDeployer,
        CommandFactory,
        Compiler,
        CostedBatchDeployer,
        Deployer,
        DiscoverySource,
        EvidenceDeployer,
        ExactAdoptionObserver,
        FailureCodeDeployer,
        IdentityPlanner,
        Journal,
        Observer,
        OwnerMarkingDeployer,
        Planner,
        ReceiptStateBackend,
        RecoveryAttributesPlanner,
        RecoveryClassifyingPlanner,
        ReplacementPreparingDeployer,
        ReplacingDeployer,
        RunnerTimeoutDeployer,
        RuntimeReader,
        RuntimeStatusObserver,
        StateBackend,
        StateBackendFactory,
        SubjectCheckingObserver,
        TopicOffsetsObserver,
        Validator,
    )
    from streamt.sdk.removal import RemovalDeployer, RemovalPlanner
    from streamt.selection import select
    from streamt.shown import UNSET, shown
    from streamt.sql.columns import Projected, Projection, projection, referenced_columns, where_clause
    from streamt.sql.lineage import column_lineage
    from streamt.sql.types import FlinkType, FlinkTypeError, declared_type_problem, parse_type
    from streamt.state.operations import RUNNER_REPLACEMENT_OPERATION, next_steps, unfinished_operation_commands
    from streamt.state.records import (
        CLEAR,
        IN_PROGRESS,
        RECOVERY_REQUIRED,
        ActionProgress,
        OperationControl,
        OwnershipRecord,
        OwnershipState,
        state_address,
    )
    from streamt.state.selection import ADMIN, READ, WRITE
    from streamt.testrun import (
        DEPLOYED,
        ERROR,
        MAX_EXAMPLES,
        PASSED,
        RUNNING,
        SKIPPED,
        Assertion,
        AssertionResult,
        RunnerReport,
        Target,
        TestCase,
        TestRunner,
        assertion_columns,
    )
    from streamt.testrun.types import canonical_type
    from streamt.values import replace

# public name -> (module, attribute). Resolved lazily by __getattr__ below.
_EXPORTS: dict[str, tuple[str, str]] = {
    # registrations
    "Materialization": ("streamt.capabilities", "Materialization"),
    "ArtifactKind": ("streamt.capabilities", "ArtifactKind"),
    # does a declaration compile into a registered kind (the one answer of compile dispatch)
    "produces": ("streamt.artifact_kinds", "produces"),
    "Exporter": ("streamt.capabilities", "Exporter"),
    "StateBackendRegistration": ("streamt.capabilities", "StateBackend"),
    "TestType": ("streamt.capabilities", "TestType"),
    "AssertionKind": ("streamt.capabilities", "AssertionKind"),
    "KnownKind": ("streamt.capabilities", "KnownKind"),
    "ConfigSection": ("streamt.capabilities", "ConfigSection"),
    "RemovalKind": ("streamt.capabilities", "RemovalKind"),
    "InitStarter": ("streamt.capabilities", "InitStarter"),
    "PlanFileExtension": ("streamt.capabilities", "PlanFileExtension"),
    # the reviewed-removal skeleton (hook streamt_removal_kinds)
    "RemovalPlanner": ("streamt.sdk.removal", "RemovalPlanner"),
    "RemovalDeployer": ("streamt.sdk.removal", "RemovalDeployer"),
    # streamt test runners (hook streamt_test_runners)
    **{name: ("streamt.testrun", name) for name in ("TestRunner", "TestCase", "RunnerReport", "AssertionResult")},
    # protocols
    **{
        name: ("streamt.sdk.protocols", name)
        for name in (
            "AdoptionAttributesObserver",
            "AdoptionObserver",
            "AdoptionPendingObserver",
            "AdvisingPlanner",
            "BatchingDeployer",
            "CommandFactory",
            "Compiler",
            "CostedBatchDeployer",
            "Deployer",
            "DiscoverySource",
            "EvidenceDeployer",
            "ExactAdoptionObserver",
            "FailureCodeDeployer",
            "IdentityPlanner",
            "Journal",
            "Observer",
            "OwnerMarkingDeployer",
            "Planner",
            "ReceiptStateBackend",
            "RecoveryAttributesPlanner",
            "RecoveryClassifyingPlanner",
            "ReplacementPreparingDeployer",
            "ReplacingDeployer",
            "RunnerTimeoutDeployer",
            "RuntimeReader",
            "RuntimeStatusObserver",
            "StateBackend",
            "StateBackendFactory",
            "SubjectCheckingObserver",
            "TopicOffsetsObserver",
            "TopicOffsetsObserver",
            "Validator",
        )
    },
    # errors and results
    "Codes": ("streamt.errors", "Codes"),
    "Diagnostic": ("streamt.errors", "Diagnostic"),
    "ErrorCode": ("streamt.errors", "ErrorCode"),
    "StreamtError": ("streamt.errors", "StreamtError"),
    "did_you_mean": ("streamt.errors", "did_you_mean"),
    "Result": ("streamt.result", "Result"),
    # a copy of a registration, Diagnostic or Result with fields changed (they are not attrs classes)
    "replace": ("streamt.values", "replace"),
    # artifacts
    **{
        name: ("streamt.artifacts", name)
        for name in (
            "Artifact",
            "canonical_json",
            "sha256_checksum",
            "shown",
        )
    },
    # the names of the kinds streamt's plugins register, for readers of compiled artifacts
    **{
        name: ("streamt.kind_names", name)
        for name in (
            "KIND_CONNECTOR",
            "KIND_CONNECTOR_REMOVAL",
            "KIND_FLINK_JOB",
            "KIND_GATEWAY_RULE",
            "KIND_GATEWAY_RULE_REMOVAL",
            "KIND_KAFKA_STREAMS_JOB",
            "KIND_SCHEMA",
            "KIND_TEST_JOB",
            "KIND_TOPIC",
        )
    },
    "atomic_write": ("streamt.fsutil", "atomic_write"),
    # HTTP providers: whether a request may have been sent, and what a status means
    **{
        name: ("streamt.http_outcome", name)
        for name in (
            "MaybeSent",
            "never_sent",
            "auth_refused",
            "refused_before_change",
            "code_for_status",
            "write_outcome",
        )
    },
    # progress of long work on stderr (live on a terminal, timestamped lines otherwise)
    **{name: ("streamt.progress", name) for name in ("Progress", "Silent", "Step", "for_command", "phase")},
    "quiet_option": ("streamt.cli.options", "quiet_option"),
    # HTTP providers: one debug log line per request (method, path template, status, duration)
    "provider_request": ("streamt.log", "provider_request"),
    "RequestLog": ("streamt.log", "RequestLog"),
    # the bounded HTTP layer every service client uses (total deadline, size and depth caps)
    **{
        name: ("streamt.bounded_http", name)
        for name in (
            "MAX_DEPTH",
            "BoundedAdapter",
            "DeadlineExceeded",
            "ResponseInvalid",
            "bounded_error",
            "bounded_session",
            "capped_deadline",
            "json_body",
            "json_depth",
            "json_or_none",
            "watched_pool",
        )
    },
    "create_exclusive": ("streamt.fsutil", "create_exclusive"),
    "write_output_file": ("streamt.exporting", "write_output_file"),
    "document_result": ("streamt.exporting", "document_result"),
    "failure_result": ("streamt.exporting", "failure_result"),
    # loading and compiling a project (commands of exporters and other plugins)
    "load_project": ("streamt.project.loader", "load_project"),
    "load_and_compile": ("streamt.compile.loading", "load_and_compile"),
    "Loaded": ("streamt.compile.loading", "Loaded"),
    "CompiledProject": ("streamt.compile.engine", "CompiledProject"),
    # each declaration's physical resource (alias, connector, job, topic), from its compiled artifacts
    **{name: ("streamt.compile.physical", name) for name in ("Physical", "physical_resources")},
    "project_dir_option": ("streamt.cli.options", "project_dir_option"),
    "env_option": ("streamt.cli.options", "env_option"),
    "project_options": ("streamt.cli.options", "project_options"),
    # planning
    **{
        name: ("streamt.plan.model", name)
        for name in (
            "Action",
            "Advice",
            "Observation",
            "SafetyBlocker",
            "blocked_update",
            "AppliedRecord",
            "ABSENT",
            "ASSUMED_ABSENT",
            "PRESENT",
            "UNAVAILABLE",
            "CREATE",
            "UPDATE",
            "DELETE",
            "NOOP",
            "ADOPT",
        )
    },
    # deploying
    **{name: ("streamt.apply.outcome", name) for name in ("Outcome", "DONE", "FAILED", "UNKNOWN", "OK")},
    # deployment state
    **{
        name: ("streamt.state.records", name)
        for name in (
            "OwnershipRecord",
            "OwnershipState",
            "OperationControl",
            "ActionProgress",
            "CLEAR",
            "IN_PROGRESS",
            "RECOVERY_REQUIRED",
            "state_address",
        )
    },
    # discovery
    **{name: ("streamt.discovery.model", name) for name in ("TopicMetadata", "SchemaLookup", "Enrichment")},
    # provider helpers: placeholders resolved at deploy time, recovery target states, pending commands
    "substitute": ("streamt.project.interpolation", "substitute"),
    "has_placeholder": ("streamt.project.interpolation", "has_placeholder"),
    "missing_error": ("streamt.project.interpolation", "missing_error"),
    "CANDIDATE": ("streamt.recovery.targets", "CANDIDATE"),
    "PRIOR": ("streamt.recovery.targets", "PRIOR"),
    "pending_command": ("streamt.pending", "pending_command"),
    # Flink SQL column types (exporters map them)
    **{
        name: ("streamt.sql.types", name)
        for name in ("FlinkType", "FlinkTypeError", "parse_type", "declared_type_problem")
    },
    "canonical_type": ("streamt.testrun.types", "canonical_type"),
    # OpenLineage namespaces (shared by the exporter and run events)
    **{
        name: ("streamt.runlineage.namespaces", name)
        for name in (
            "JOB_NAMESPACE_ENV",
            "KAFKA_NAMESPACE_ENV",
            "GATEWAY_NAMESPACE_ENV",
            "derive_kafka_uri",
            "is_kafka_uri",
            "job_namespace_problem",
        )
    },
    # test runners: the rest of streamt.testrun
    **{
        name: ("streamt.testrun", name)
        for name in ("Assertion", "Target", "DEPLOYED", "ERROR", "PASSED", "RUNNING", "SKIPPED", "MAX_EXAMPLES")
    },
    "assertion_columns": ("streamt.testrun", "assertion_columns"),
    # discovery lookup statuses (FAILED is the same "failed" as an Outcome's)
    **{
        name: ("streamt.discovery.model", name)
        for name in ("NOT_FOUND", "NOT_REQUESTED", "RESOLVED", "SKIPPED_AFTER_OUTAGE")
    },
    # reviewed operations (plugins that run their own state-changing commands)
    "boundary": ("streamt.boundary", "boundary"),
    **{name: ("streamt.apply.gates", name) for name in ("require_remote_state", "check_confirm_env", "confirm")},
    **{name: ("streamt.apply.replacement", name) for name in ("require_receipts", "reviewed_verifier")},
    "verify_bindings": ("streamt.apply.review", "verify_bindings"),
    "validate_and_compile": ("streamt.compile.loading", "validate_and_compile"),
    "project_bindings": ("streamt.plan.engine", "project_bindings"),
    "open_backend": ("streamt.plan.online", "open_backend"),
    **{name: ("streamt.plan.planfile", name) for name in ("read_plan_file", "require_authorizing")},
    # the reason of a removal tombstone's no-op: nothing recorded, nothing live (plugins' removal planners)
    "TOMBSTONE_FULFILLED": ("streamt.plan.tombstones", "TOMBSTONE_FULFILLED"),
    **{name: ("streamt.state.selection", name) for name in ("READ", "WRITE", "ADMIN")},
    # the operation kind a runner-replacement coordinator begins (generic recovery refuses it)
    **{
        name: ("streamt.state.operations", name)
        for name in ("RUNNER_REPLACEMENT_OPERATION", "next_steps", "unfinished_operation_commands")
    },
    # the project read view
    **{
        name: ("streamt.project.model", name)
        for name in ("Project", "Model", "Source", "Test", "Exposure", "Column", "Runtime", "Notice")
    },
    # a plugin's own model section (``model.<name>`` of its ConfigSection), as its own class
    "model_section": ("streamt.project.model", "model_section"),
    "Ref": ("streamt.refs", "Ref"),
    # text a person reads never spells a missing value as Python's None
    **{name: ("streamt.shown", name) for name in ("shown", "UNSET")},
    # reading a project as it is declared (streamt-impact compares two of them)
    "PROJECT_FILES": ("streamt.project.loader", "PROJECT_FILES"),
    "DECLARATION_DIRS": ("streamt.project.loader", "DECLARATION_DIRS"),
    "MAX_PROJECT_FILE_BYTES": ("streamt.project.yaml_io", "MAX_FILE_BYTES"),
    "ENVIRONMENT_ENV": ("streamt.project.environments", "ENV_VAR"),
    "Graph": ("streamt.dag", "Graph"),
    "GraphNode": ("streamt.dag", "Node"),
    "build_graph": ("streamt.dag", "build_graph"),
    "select": ("streamt.selection", "select"),
    "column_lineage": ("streamt.sql.lineage", "column_lineage"),
    **{
        name: ("streamt.sql.columns", name)
        for name in ("Projected", "Projection", "projection", "referenced_columns", "where_clause")
    },
    "is_secret_name": ("streamt.redact", "is_secret_name"),
    "is_removal": ("streamt.plan.tombstones", "is_removal"),
    "produced_kinds": ("streamt.artifact_kinds", "produced_kinds"),
    "installed_planners": ("streamt.kinds", "installed_planners"),
    "to_json_text": ("streamt.json_output", "to_json_text"),
}

__all__ = [
    "ABSENT",
    "ADMIN",
    "ADOPT",
    "ASSUMED_ABSENT",
    "CANDIDATE",
    "CLEAR",
    "CREATE",
    "DECLARATION_DIRS",
    "DELETE",
    "DEPLOYED",
    "DONE",
    "ENVIRONMENT_ENV",
    "ERROR",
    "FAILED",
    "GATEWAY_NAMESPACE_ENV",
    "IN_PROGRESS",
    "JOB_NAMESPACE_ENV",
    "KAFKA_NAMESPACE_ENV",
    "KIND_CONNECTOR",
    "KIND_CONNECTOR_REMOVAL",
    "KIND_FLINK_JOB",
    "KIND_GATEWAY_RULE",
    "KIND_GATEWAY_RULE_REMOVAL",
    "KIND_KAFKA_STREAMS_JOB",
    "KIND_SCHEMA",
    "KIND_TEST_JOB",
    "KIND_TOPIC",
    "MAX_DEPTH",
    "MAX_EXAMPLES",
    "MAX_PROJECT_FILE_BYTES",
    "NOOP",
    "NOT_FOUND",
    "NOT_REQUESTED",
    "OK",
    "PASSED",
    "PRESENT",
    "PRIOR",
    "PROJECT_FILES",
    "READ",
    "RECOVERY_REQUIRED",
    "RESOLVED",
    "RUNNER_REPLACEMENT_OPERATION",
    "RUNNING",
    "SKIPPED",
    "SKIPPED_AFTER_OUTAGE",
    "TOMBSTONE_FULFILLED",
    "UNAVAILABLE",
    "UNKNOWN",
    "UNSET",
    "UPDATE",
    "WRITE",
    "Action",
    "ActionProgress",
    "AdoptionAttributesObserver",
    "AdoptionObserver",
    "AdoptionPendingObserver",
    "Advice",
    "AdvisingPlanner",
    "AppliedRecord",
    "Artifact",
    "ArtifactKind",
    "Assertion",
    "AssertionKind",
    "AssertionResult",
    "BatchingDeployer",
    "BoundedAdapter",
    "Codes",
    "Column",
    "CommandFactory",
    "CompiledProject",
    "Compiler",
    "ConfigSection",
    "CostedBatchDeployer",
    "DeadlineExceeded",
    "Deployer",
    "Diagnostic",
    "DiscoverySource",
    "Enrichment",
    "ErrorCode",
    "EvidenceDeployer",
    "ExactAdoptionObserver",
    "Exporter",
    "Exposure",
    "FailureCodeDeployer",
    "FlinkType",
    "FlinkTypeError",
    "Graph",
    "GraphNode",
    "IdentityPlanner",
    "InitStarter",
    "Journal",
    "KnownKind",
    "Loaded",
    "Materialization",
    "MaybeSent",
    "Model",
    "Notice",
    "Observation",
    "Observer",
    "OperationControl",
    "Outcome",
    "OwnerMarkingDeployer",
    "OwnershipRecord",
    "OwnershipState",
    "Physical",
    "PlanFileExtension",
    "Planner",
    "Progress",
    "Project",
    "Projected",
    "Projection",
    "ReceiptStateBackend",
    "RecoveryAttributesPlanner",
    "RecoveryClassifyingPlanner",
    "Ref",
    "RemovalDeployer",
    "RemovalKind",
    "RemovalPlanner",
    "ReplacementPreparingDeployer",
    "ReplacingDeployer",
    "RequestLog",
    "ResponseInvalid",
    "Result",
    "RunnerReport",
    "RunnerTimeoutDeployer",
    "Runtime",
    "RuntimeReader",
    "RuntimeStatusObserver",
    "SafetyBlocker",
    "SchemaLookup",
    "Silent",
    "Source",
    "StateBackend",
    "StateBackendFactory",
    "StateBackendRegistration",
    "Step",
    "StreamtError",
    "SubjectCheckingObserver",
    "Target",
    "Test",
    "TestCase",
    "TestRunner",
    "TestType",
    "TopicMetadata",
    "TopicOffsetsObserver",
    "Validator",
    "__version__",
    "assertion_columns",
    "atomic_write",
    "auth_refused",
    "blocked_update",
    "boundary",
    "bounded_error",
    "bounded_session",
    "build_graph",
    "canonical_json",
    "canonical_type",
    "capped_deadline",
    "check_confirm_env",
    "code_for_status",
    "column_lineage",
    "confirm",
    "create_exclusive",
    "declared_type_problem",
    "derive_kafka_uri",
    "did_you_mean",
    "document_result",
    "env_option",
    "failure_result",
    "for_command",
    "has_placeholder",
    "hookimpl",
    "installed_planners",
    "is_kafka_uri",
    "is_removal",
    "is_secret_name",
    "job_namespace_problem",
    "json_body",
    "json_depth",
    "json_or_none",
    "load_and_compile",
    "load_project",
    "missing_error",
    "model_section",
    "never_sent",
    "next_steps",
    "open_backend",
    "parse_type",
    "pending_command",
    "phase",
    "physical_resources",
    "produced_kinds",
    "produces",
    "project_bindings",
    "project_dir_option",
    "project_options",
    "projection",
    "provider_request",
    "quiet_option",
    "read_plan_file",
    "referenced_columns",
    "refused_before_change",
    "replace",
    "require_authorizing",
    "require_receipts",
    "require_remote_state",
    "reviewed_verifier",
    "select",
    "sha256_checksum",
    "shown",
    "state_address",
    "substitute",
    "to_json_text",
    "unfinished_operation_commands",
    "validate_and_compile",
    "verify_bindings",
    "watched_pool",
    "where_clause",
    "write_outcome",
    "write_output_file",
]


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'streamt.sdk' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module_name), attribute)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
