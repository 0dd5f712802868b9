"""The parsed project: immutable attrs classes, one per declaration block of ``dsl.md``.

Shorthands and aliases (top-level ``topic:`` vs ``advanced.topic``, ``connector:`` vs ``sink:``,
``from: name``, ``on_failure: [..]``) are normalised before structuring, so every class here has
exactly one place for each fact. Free-form maps (topic configs, connector configs, SLA blocks)
stay plain dicts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypeVar

import attrs

from streamt.project.readonly import ReadOnlyMap
from streamt.refs import Ref

OWNERSHIP_MODES = ("managed", "external", "adopted")
CLASSIFICATIONS = ("public", "internal", "confidential", "sensitive", "highly_sensitive")
EXPOSURE_TYPES = ("application", "dashboard", "ml_training", "ml_inference", "api")
T = TypeVar("T")


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value or ())


# --- shared -------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Column:
    """One declared column of a source, model, schema or exposure reference.

    * ``name`` — the column name; ``type`` — its Flink SQL type as written (``BIGINT``), or ``None``.
    * ``description`` — free text; ``classification`` — ``public`` ... ``highly_sensitive``, or ``None``.
    * ``required`` — declared ``required: true``; ``nullable`` — declared nullability, ``None`` if unsaid.
    * ``proctime`` — a processing-time attribute (``PROCTIME()``), not a stored field.
    """

    name: str
    type: str | None = None
    description: str | None = None
    classification: str | None = None
    required: bool = False
    proctime: bool = False
    nullable: bool | None = None


@attrs.frozen(kw_only=True)
class Ownership:
    """Who manages a declared resource.

    * ``mode`` — ``managed`` (streamt creates and changes it), ``external`` (declared only, never
      touched) or ``adopted`` (an existing resource claimed with ``streamt adopt``).
    """

    mode: str = "managed"


@attrs.frozen(kw_only=True)
class Watermark:
    """The watermark of an event-time column.

    * ``strategy`` — ``bounded_out_of_orderness`` (default) or ``monotonously_increasing``.
    * ``max_out_of_orderness_ms`` — how far behind the newest event time an event may arrive.
    """

    strategy: str = "bounded_out_of_orderness"
    max_out_of_orderness_ms: int = 5000


@attrs.frozen(kw_only=True)
class EventTime:
    """Event time of a source or model.

    * ``column`` — the event-time column; ``watermark`` — its watermark.
    * ``allowed_lateness_ms`` — how long windows accept late events after the watermark.
    """

    column: str | None = None
    watermark: Watermark | None = None
    allowed_lateness_ms: int | None = None


# --- sources ------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Schema:
    """The registry subject of a source.

    * ``registry`` — the registry it is in; ``subject`` — the subject (default ``<topic>-value``).
    * ``version`` — a pinned version number or ``latest``.
    * ``format`` — ``avro``, ``json`` or ``protobuf``; ``definition`` — the schema text itself.
    * ``compatibility`` — the subject's compatibility level; ``fields`` — its fields as columns.
    """

    registry: str | None = None
    subject: str | None = None
    version: Any = None  # a pinned integer or "latest"
    format: str | None = None
    definition: str | None = None
    compatibility: str | None = None
    fields: tuple[Column, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen(kw_only=True)
class Freshness:
    """How fresh a source's data is expected to be.

    * ``max_lag_seconds`` — the most the newest record may lag behind now.
    * ``warn_after_seconds`` — the lag after which a warning is given.
    """

    max_lag_seconds: int | None = None
    warn_after_seconds: int | None = None


@attrs.frozen(kw_only=True)
class SourceAdvanced:
    event_time: EventTime | None = None


@attrs.frozen(kw_only=True)
class Source:
    """A declared source: an existing Kafka topic (``external`` unless adopted or managed).

    * ``name`` — the declaration name; ``topic`` — the physical topic.
    * ``description``, ``owner``, ``tags``, ``region`` — catalog metadata as written.
    * ``cluster`` — the named Kafka cluster it lives on, or ``None`` for the default.
    * ``schema`` — the registry subject/format/definition, or ``None``; ``columns`` — declared columns.
    * ``freshness`` — ``max_lag_seconds`` / ``warn_after_seconds`` expectations, or ``None``.
    * ``event_time`` — the event-time column and watermark (``advanced`` holds the long form).
    * ``ownership`` — ``Ownership(mode=...)``: ``external`` (default), ``adopted`` or ``managed``.
    * ``sections`` — the source's plugin sections (``format``: how Flink jobs decode its records),
      by name, as for ``Model.sections``.
    """

    name: str
    topic: str
    description: str | None = None
    owner: str | None = None
    cluster: str | None = None
    tags: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    schema: Schema | None = None
    columns: tuple[Column, ...] = attrs.field(default=(), converter=_tuple)
    freshness: Freshness | None = None
    event_time: EventTime | None = None
    advanced: SourceAdvanced | None = None
    ownership: Ownership = Ownership(mode="external")
    region: str | None = None
    sections: ReadOnlyMap = attrs.field(factory=ReadOnlyMap)

    def section(self, name: str) -> Any:
        """The section ``<name>`` of this source (its owning plugin's value), or ``None`` when not written."""
        return self.sections.get(name)


# --- models -------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class TopicConfig:
    """The Kafka topic of a model.

    * ``name`` — the physical topic name (default: the model's name).
    * ``partitions`` — the partition count (it can grow, never shrink); ``replication_factor`` — fixed at creation.
    * ``config`` — topic configs (``retention.ms`` ...), compared key by key; broker defaults are not drift.
    """

    name: str | None = None
    partitions: int | None = None
    replication_factor: int | None = None
    config: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Policy:
    """One security policy: ``kind`` is ``mask``, ``allow`` or ``deny``."""

    kind: str
    column: str | None = None
    method: str | None = None
    for_roles: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    roles: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    purpose: str | None = None


@attrs.frozen(kw_only=True)
class Security:
    classification: dict[str, str] = attrs.field(factory=dict)
    policies: tuple[Policy, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen(kw_only=True)
class Contract:
    enforced: bool = True
    columns: tuple[Column, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen(kw_only=True)
class MlOutput:
    columns: tuple[Column, ...] = attrs.field(default=(), converter=_tuple)
    description: str | None = None


@attrs.frozen(kw_only=True)
class Model:
    """A model after normalisation.

    ``materialized`` is the effective materialization (dsl.md §9.2), ``declared_materialized`` what the
    file said. ``dependencies`` are the ``source()``/``ref()`` calls actually made by the SQL (or ``from``
    when there is no SQL), in call order without repeats. ``rendered_sql`` has those calls replaced by
    physical topic names; it is ``None`` without SQL or when rendering failed (see the diagnostics).

    * ``name``, ``description``, ``owner``, ``tags``, ``group``, ``version``, ``region``,
      ``deprecation`` — declaration metadata as written.
    * ``sql`` — the Jinja SQL as written; ``from_`` — the ``from:`` references of a sink without SQL.
    * ``key``, ``primary_key`` — the record key column and the declared primary key.
    * ``columns`` — declared columns; ``contract`` — the enforced output contract, or ``None``.
    * ``executor`` — who runs a topic model's SQL: ``flink`` (default) or a plugin executor.
    * ``access`` — ``private``, ``protected`` or ``public`` (governance).
    * ``security`` — masking policies; ``ml_outputs`` — declared ML_PREDICT outputs.
    * ``ownership`` — ``Ownership(mode=...)``: ``managed`` (default), ``external`` or ``adopted``.
    * ``topic`` — topic settings (``name``, ``partitions``, ``replication_factor``, ``config``).
    * ``event_time`` — the event-time column and watermark, or ``None``.
    * ``sections`` — the model's plugin sections (``flink``, ``sink``, ``gateway`` ... dsl.md §9.3),
      read-only, by name: the value the owning plugin's ``ConfigSection`` structured, or what was
      written when no installed plugin claims it. Core never reads inside; the owning plugin does
      (``streamt.sdk.model_section``).
    """

    name: str
    description: str | None = None
    owner: str | None = None
    tags: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    sql: str | None = None
    from_: tuple[Ref, ...] = attrs.field(default=(), converter=_tuple)
    key: str | None = None
    columns: tuple[Column, ...] = attrs.field(default=(), converter=_tuple)
    primary_key: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    declared_materialized: str | None = None
    materialized: str = "topic"
    executor: str = "flink"
    access: str = "private"
    group: str | None = None
    version: int | None = None
    security: Security | None = None
    contract: Contract | None = None
    ml_outputs: dict[str, MlOutput] = attrs.field(factory=dict)
    ownership: Ownership = Ownership()
    topic: TopicConfig = TopicConfig()
    event_time: EventTime | None = None
    deprecation: dict[str, Any] = attrs.field(factory=dict)
    region: str | None = None
    dependencies: tuple[Ref, ...] = attrs.field(default=(), converter=_tuple)
    rendered_sql: str | None = None
    sections: ReadOnlyMap = attrs.field(factory=ReadOnlyMap)

    def section(self, name: str) -> Any:
        """The section ``<name>`` of this model (its owning plugin's value), or ``None`` when not written."""
        return self.sections.get(name)

    @property
    def topic_name(self) -> str:
        """The physical Kafka topic this model writes (or aliases)."""
        return self.topic.name or self.name

    @property
    def upstream(self) -> tuple[str, ...]:
        """The names of the sources and models this model reads."""
        return tuple(ref.name for ref in self.dependencies)


def model_section(model: Model | ModelDefaults | Source | None, name: str, cls: type[T]) -> T | None:
    """The plugin section ``name`` of ``model`` (of ``defaults.models``, of a source) as its owner's class ``cls``.

    ``None`` when it is not written, or when it was kept as written because its plugin is missing:
    a plugin asks for its own section (``model_section(model, "flink", FlinkConfig)``) and gets it typed.
    """
    value = model.section(name) if model is not None else None
    return value if isinstance(value, cls) else None


# --- tests and exposures ------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class OnFailure:
    severity: str = "error"
    actions: tuple[dict[str, Any], ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen(kw_only=True)
class Test:
    """A declared data-quality test.

    * ``name`` — the test name; ``model`` — the model or source it tests.
    * ``type`` — the test type (``schema``, ``sample``, ``continuous`` or a plugin's own).
    * ``assertions`` — one mapping per assertion, ``{kind: arguments}`` as written.
    * ``sample_size`` — records a ``sample`` test reads, or ``None`` for the default.
    * ``flink_cluster`` — the named cluster of a ``continuous`` test.
    * ``on_failure`` — ``severity`` and ``actions``, or ``None``.
    """

    name: str
    model: str
    type: str
    assertions: tuple[dict[str, Any], ...] = attrs.field(default=(), converter=_tuple)
    sample_size: int | None = None
    flink_cluster: str | None = None
    on_failure: OnFailure | None = None


@attrs.frozen(kw_only=True)
class ExposureRef(Ref):
    """A ``Ref`` from an exposure, with the columns the application needs from it."""

    columns: tuple[Column, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen(kw_only=True)
class Exposure:
    """A declared consumer or producer outside streamt (application, dashboard, ML job ...).

    * ``name``, ``type``, ``role``, ``description``, ``owner`` — as written.
    * ``url``, ``repo``, ``language``, ``tool``, ``consumer_group``, ``schedule`` — catalog facts.
    * ``produces``, ``consumes``, ``depends_on`` — ``ExposureRef`` tuples (with needed columns).
    * ``sla``, ``contracts``, ``access``, ``freshness``, ``data_requirements`` — free-form maps.
    """

    name: str
    type: str
    role: str | None = None
    description: str | None = None
    owner: str | None = None
    url: str | None = None
    repo: str | None = None
    language: str | None = None
    tool: str | None = None
    consumer_group: str | None = None
    schedule: str | None = None
    produces: tuple[ExposureRef, ...] = attrs.field(default=(), converter=_tuple)
    consumes: tuple[ExposureRef, ...] = attrs.field(default=(), converter=_tuple)
    depends_on: tuple[ExposureRef, ...] = attrs.field(default=(), converter=_tuple)
    sla: dict[str, Any] = attrs.field(factory=dict)
    contracts: dict[str, Any] = attrs.field(factory=dict)
    access: dict[str, Any] = attrs.field(factory=dict)
    freshness: dict[str, Any] = attrs.field(factory=dict)
    data_requirements: dict[str, Any] = attrs.field(factory=dict)


# --- runtime ------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class KafkaRuntime:
    """The Kafka cluster.

    * ``bootstrap_servers`` — the brokers streamt connects to (a string or a list of ``host:port``).
    * ``bootstrap_servers_internal`` — the same cluster as Flink and Connect workers reach it.
    * ``security_protocol`` — ``PLAINTEXT``, ``SSL``, ``SASL_PLAINTEXT`` or ``SASL_SSL``.
    * ``sasl_mechanism`` — ``PLAIN``, ``SCRAM-SHA-256``, ``SCRAM-SHA-512``, ``OAUTHBEARER`` or ``GSSAPI``.
    * ``sasl_username``, ``sasl_password`` — SASL credentials (use ``${VAR}``, never a literal secret).
    * ``ssl_ca_location``, ``ssl_certificate_location``, ``ssl_key_location``, ``ssl_key_password`` — TLS files.
    """

    bootstrap_servers: str
    bootstrap_servers_internal: str | None = None
    security_protocol: str = "PLAINTEXT"
    sasl_mechanism: str | None = None
    sasl_username: str | None = None
    sasl_password: str | None = attrs.field(default=None, repr=False)
    ssl_ca_location: str | None = None
    ssl_certificate_location: str | None = None
    ssl_key_location: str | None = None
    ssl_key_password: str | None = attrs.field(default=None, repr=False)

    @property
    def internal_servers(self) -> str:
        return self.bootstrap_servers_internal or self.bootstrap_servers


@attrs.frozen(kw_only=True)
class SchemaRegistryRuntime:
    """The Schema Registry.

    * ``url`` — its base URL; ``username``, ``password`` — basic-auth credentials (use ``${VAR}``).
    * ``ssl_ca_location``, ``ssl_certificate_location``, ``ssl_key_location``, ``ssl_key_password`` — TLS files.
    """

    url: str
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)
    ssl_ca_location: str | None = None
    ssl_certificate_location: str | None = None
    ssl_key_location: str | None = None
    ssl_key_password: str | None = attrs.field(default=None, repr=False)


@attrs.frozen(kw_only=True)
class Runtime:
    """The ``runtime`` configuration of the selected environment (secrets resolved in memory only).

    * ``kafka`` — brokers and client security; ``schema_registry`` — the registry, or ``None``.
    * ``sections`` — every other section (``flink``, ``connect``, ``kafka_streams``, ``conduktor``
      ...), read-only, by name: the value the owning plugin's ``ConfigSection`` structured, or what
      was written when no installed plugin claims it. Core never reads inside; the owning plugin does.
    * ``enabled`` — the materializations whose runtime those sections configure (``flink``,
      ``virtual_topic``), as their plugins report it: what dsl.md §9.2 inference asks.
    * ``variables`` — the effective environment the project was loaded with (``.env``, then
      ``.env.<env>``, then the process: dsl.md §2.3), in memory only, never shown, stored or hashed;
      what ``${VAR}`` placeholders kept for apply time resolve from (``environment()``).
    """

    kafka: KafkaRuntime
    schema_registry: SchemaRegistryRuntime | None = None
    sections: ReadOnlyMap = attrs.field(factory=ReadOnlyMap)
    enabled: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    variables: ReadOnlyMap = attrs.field(factory=ReadOnlyMap, repr=False, eq=False)

    def environment(self) -> Mapping[str, str]:
        """Where an apply-time ``${VAR}`` resolves: ``variables``, or the process environment for a
        ``Runtime`` that was not built by the project loader."""
        return self.variables or os.environ

    def section(self, name: str) -> Any:
        """The section ``runtime.<name>`` (its owning plugin's value), or ``None`` when not written."""
        return self.sections.get(name)

    def enables(self, materialization: str) -> bool:
        """Whether a configured section provides the runtime of ``materialization``."""
        return materialization in self.enabled


# --- defaults, rules, safety, state, lifecycle --------------------------------------------------


@attrs.frozen(kw_only=True)
class TopicDefaults:
    partitions: int | None = None
    replication_factor: int | None = None
    config: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class ModelDefaults:
    # No docstring: ``streamt schema`` would describe ``defaults.models`` with it.
    topic: TopicDefaults | None = None
    cluster: str | None = None
    # The model sections a plugin accepts here too (``ConfigSection.defaults``: ``flink``), by name.
    sections: ReadOnlyMap = attrs.field(factory=ReadOnlyMap)

    def section(self, name: str) -> Any:
        """The default of the model section ``<name>`` (its owning plugin's value), or ``None``."""
        return self.sections.get(name)


@attrs.frozen(kw_only=True)
class TestDefaults:
    flink_cluster: str | None = None
    sample_size: int | None = None


@attrs.frozen(kw_only=True)
class Defaults:
    topic: TopicDefaults | None = None
    models: ModelDefaults | None = None
    tests: TestDefaults | None = None

    @property
    def partitions(self) -> int:
        return _topic_default(self, "partitions") or 1

    @property
    def replication_factor(self) -> int:
        return _topic_default(self, "replication_factor") or 1

    @property
    def topic_config(self) -> dict[str, Any]:
        if self.topic is not None:
            return dict(self.topic.config)
        if self.models is not None and self.models.topic is not None:
            return dict(self.models.topic.config)
        return {}

    @property
    def sample_size(self) -> int:
        return (self.tests.sample_size if self.tests else None) or 100


def _topic_default(defaults: Defaults, attribute: str) -> int | None:
    # `defaults.topic` wins over `defaults.models.topic` (upstream precedence).
    for block in (defaults.topic, defaults.models.topic if defaults.models else None):
        value = getattr(block, attribute) if block is not None else None
        if value is not None:
            return int(value)
    return None


@attrs.frozen(kw_only=True)
class TopicRules:
    min_partitions: int | None = None
    max_partitions: int | None = None
    min_replication_factor: int | None = None
    max_replication_factor: int | None = None
    required_config: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    max_retention_ms: int | None = None
    naming_pattern: str | None = None
    forbidden_prefixes: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen(kw_only=True)
class ModelRules:
    require_description: bool = False
    require_owner: bool = False
    valid_owners: tuple[str, ...] | None = None
    require_tests: bool = False
    min_tests: int | None = None
    max_dependencies: int | None = None
    allowed_materializations: tuple[str, ...] | None = None


@attrs.frozen(kw_only=True)
class SourceRules:
    require_schema: bool = False
    require_freshness: bool = False
    require_columns: bool = False
    require_owner: bool = False
    require_description: bool = False


@attrs.frozen(kw_only=True)
class SecurityRules:
    require_classification: bool = False
    sensitive_columns_require_masking: bool = False
    allowed_classifications: tuple[str, ...] | None = None


@attrs.frozen(kw_only=True)
class Rules:
    topics: TopicRules = TopicRules()
    models: ModelRules = ModelRules()
    sources: SourceRules = SourceRules()
    security: SecurityRules = SecurityRules()


@attrs.frozen(kw_only=True)
class Safety:
    """``confirm_apply`` is ``None`` when unset: it then follows ``protected`` (see ``Environment``)."""

    confirm_apply: bool | None = None
    allow_destructive: bool = False
    require_reviewed_plan: bool = False
    require_remote_state: bool = False


@attrs.frozen(kw_only=True)
class DeploymentState:
    """``deployment_state``: which backend holds ownership state, and the backends' own sections.

    * ``backend`` — the backend name (``local`` or a plugin's); ``namespace`` — the state namespace.
    * ``lock_timeout_seconds`` — how long a command waits for the state lock.
    * ``sections`` — backend settings (``postgres`` ...), read-only, by name, as for ``Runtime``.
    """

    backend: str = "local"
    namespace: str | None = None
    lock_timeout_seconds: int = 30
    sections: ReadOnlyMap = attrs.field(factory=ReadOnlyMap)

    def section(self, name: str) -> Any:
        """The section ``deployment_state.<name>`` (its owning plugin's value), or ``None``."""
        return self.sections.get(name)


# ``lifecycle``: removal tombstones by the key a plugin registered (``RemovalKind.key``), each entry
# structured into that plugin's ``model`` (kept as written when no installed plugin claims the key).
# No docstring: the editor schema's ``lifecycle`` node has none either.
@attrs.frozen(kw_only=True)
class Lifecycle:
    removals: ReadOnlyMap = attrs.field(factory=ReadOnlyMap)

    def entries(self, key: str) -> tuple[Any, ...]:
        """The tombstones written under ``lifecycle.<key>``, in file order."""
        return tuple(self.removals.get(key, ()))


@attrs.frozen(kw_only=True)
class Notice:
    """An upstream-only warning without a seed code (dsl.md §17): reported, never fails ``--strict``.

    * ``code`` — a stable lower-case name (``state_ttl_short`` ...), not an ``ErrorCode``.
    * ``message`` — one human line; ``subject`` — the declaration it is about, or ``None``.
    """

    code: str
    message: str
    subject: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The notice as JSON data (``data.notices``)."""
        return {"code": self.code, "message": self.message, "subject": self.subject}


# --- the project --------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class ProjectInfo:
    """The ``project`` block.

    * ``name`` — the project name; ``version`` — its version, as text; ``description`` — free text.
    * ``non_secret_env`` — the variables whose ``{{ env() }}`` values may be published (show, docs,
      ``generated/``); any other one is its ``${NAME}`` placeholder there, resolved only at apply.
    """

    name: str
    version: str = "0.0.0"
    description: str | None = None
    non_secret_env: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


@attrs.frozen(kw_only=True)
class Environment:
    """The selected environment: ``default`` in single-environment projects."""

    name: str = "default"
    description: str | None = None
    protected: bool = False
    multi: bool = False
    safety: Safety = Safety()

    @property
    def confirm_apply(self) -> bool:
        return self.protected if self.safety.confirm_apply is None else self.safety.confirm_apply

    @property
    def cli_option(self) -> str:
        """`` --env NAME`` for a command line an operator runs next; empty where --env is refused (E503)."""
        return f" --env {self.name}" if self.multi else ""


@attrs.frozen(kw_only=True)
class Project:
    """A loaded project for one environment: the immutable read view every hook receives.

    * ``root`` — the project directory; ``info`` — ``name``, ``version``, ``description``.
    * ``environment`` — the selected environment (``name``, ``protected``, ``safety`` ...).
    * ``runtime`` — the environment's ``Runtime``; ``api_version`` — ``apiVersion`` or ``None``.
    * ``defaults``, ``rules`` — project defaults and governance rules.
    * ``sources``, ``models``, ``tests``, ``exposures`` — declarations in file order
      (look one up with ``source(name)``, ``model(name)`` ...).
    * ``deployment_state`` — ``backend``, ``namespace`` and backend settings.
    * ``lifecycle`` — removal tombstones.
    * ``locations`` — where each declaration was read from: ``("model", name) -> "models/x.yml"``.
    * ``diagnostics``, ``notices`` — load-time findings that validation reports with its own.
    * ``runtime_placeholders`` — the ``${...}`` text of runtime values (see ``runtime_placeholder``).
    """

    root: str
    info: ProjectInfo
    environment: Environment
    runtime: Runtime
    api_version: str | None = None
    defaults: Defaults = Defaults()
    rules: Rules = Rules()
    sources: tuple[Source, ...] = attrs.field(default=(), converter=_tuple)
    models: tuple[Model, ...] = attrs.field(default=(), converter=_tuple)
    tests: tuple[Test, ...] = attrs.field(default=(), converter=_tuple)
    exposures: tuple[Exposure, ...] = attrs.field(default=(), converter=_tuple)
    deployment_state: DeploymentState = DeploymentState()
    lifecycle: Lifecycle = Lifecycle()
    # Where each declaration was read from: ("model", name) -> "models/x.yml".
    locations: dict[tuple[str, str], str] = attrs.field(factory=dict, eq=False, repr=False)
    # Load-time findings (W401, E105, notices) that validation reports with its own.
    diagnostics: tuple[Any, ...] = attrs.field(default=(), converter=_tuple, eq=False, repr=False)
    notices: tuple[Notice, ...] = attrs.field(default=(), converter=_tuple, eq=False, repr=False)
    # "kafka.sasl_password" -> "${KAFKA_PW}": the text written in the file, for runtime values that
    # were placeholders (see ``runtime_placeholder``). Never holds a resolved value.
    runtime_placeholders: dict[str, str] = attrs.field(factory=dict, eq=False, repr=False)

    def runtime_placeholder(self, path: str) -> str | None:
        """The ``${...}`` text that the runtime value at ``path`` was written as, or ``None``.

        ``path`` is dotted below ``runtime`` (a leading ``runtime.`` is accepted), using the
        attribute names of ``project.runtime``: ``"kafka.sasl_password"``,
        ``"flink.clusters.cloud.api_secret"``, ``"conduktor.gateway.password"``. ``None`` means
        the value was a literal in the file, or is not set. Compilers that must not embed a secret
        write this text into generated SQL/configs and let the deployer resolve it. A value that
        mixes text and placeholders (``"user:${PW}"``) is returned whole, as written.
        """
        key = path.removeprefix("runtime.")
        return self.runtime_placeholders.get(key)

    @property
    def name(self) -> str:
        """The project's name (``project.name``)."""
        return self.info.name

    @property
    def env(self) -> str:
        """The effective environment name (``default`` in single-environment projects)."""
        return self.environment.name

    @property
    def strict(self) -> bool:
        """Whether the project declares ``apiVersion`` (strict mode: unknown keys are errors)."""
        return self.api_version is not None

    @property
    def safety(self) -> Safety:
        """The effective environment's safety settings."""
        return self.environment.safety

    def source(self, name: str) -> Source | None:
        """The source named ``name``, or ``None``."""
        return _index(self.sources).get(name)

    def model(self, name: str) -> Model | None:
        """The model named ``name``, or ``None``."""
        return _index(self.models).get(name)

    def test(self, name: str) -> Test | None:
        """The test named ``name``, or ``None``."""
        return _index(self.tests).get(name)

    def exposure(self, name: str) -> Exposure | None:
        """The exposure named ``name``, or ``None``."""
        return _index(self.exposures).get(name)

    def topic_of(self, ref: Ref | ExposureRef) -> str | None:
        """Physical topic of a source or model reference (``None`` if it does not exist)."""
        if ref.kind == "source":
            source = self.source(ref.name)
            return source.topic if source else None
        model = self.model(ref.name)
        return model.topic_name if model else None

    def downstream(self, name: str) -> tuple[str, ...]:
        """Models that depend directly on the source or model ``name``, in declaration order."""
        return tuple(m.name for m in self.models if name in m.upstream)


_INDEX_CACHE: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}


def _index(items: tuple[Any, ...]) -> dict[str, Any]:
    # First declaration wins on duplicates (those are reported as E103 by validation).
    cached = _INDEX_CACHE.get(id(items))
    if cached is not None and cached[0] is items:
        return cached[1]
    index: dict[str, Any] = {}
    for item in items:
        index.setdefault(item.name, item)
    if len(_INDEX_CACHE) > 256:
        _INDEX_CACHE.clear()
    _INDEX_CACHE[id(items)] = (items, index)
    return index
