"""One Flink model -> one ``flink_job`` artifact: SET lines, source and sink DDL, INSERT INTO.

The sink is an append ``kafka`` table, or an ``upsert-kafka`` table with ``PRIMARY KEY ... NOT
ENFORCED`` on the group keys when the query is a non-windowed aggregation (its result rows are
updated, which an append table refuses). The job depends on its sink topic, whose artifact comes
from the Kafka plugin.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import attrs
from streamt.sdk import KIND_FLINK_JOB, KIND_TOPIC, Artifact, Codes, StreamtError

from streamt_flink import ddl, options
from streamt_flink.config import flink_runtime
from streamt_flink.jobquery import render_query
from streamt_flink.masking import mask_expression
from streamt_flink.query import QueryShape, analyze, unquote
from streamt_flink.relations import (
    DEFAULT_WATERMARK_MS,
    WINDOW_COLUMNS,
    Relation,
    format_of,
    job_input,
    model_relation,
)
from streamt_flink.secrets import kafka_password_placeholder
from streamt_flink.settings import default_cluster, default_settings, flink_cluster, flink_settings

PROVIDER = "streamt-flink"


@attrs.frozen
class Sink:
    table: str
    topic: str
    connector: str
    columns: tuple[ddl.TableColumn, ...]
    primary_key: tuple[str, ...] = ()
    key_fields: tuple[str, ...] = ()
    value_format: str = options.FORMAT


def connection(project: Any) -> options.KafkaConnection:
    kafka = project.runtime.kafka
    return options.KafkaConnection(
        bootstrap_servers=kafka.internal_servers,
        security_protocol=kafka.security_protocol,
        sasl_mechanism=kafka.sasl_mechanism,
        sasl_username=kafka.sasl_username,
        password_placeholder=kafka_password_placeholder(project),
    )


def group_id(project: Any, job: str) -> str:
    return f"streamt.{project.name}.{project.env}.{job}"


def cluster_of(project: Any, explicit: str | None, default: str | None) -> str | None:
    flink = flink_runtime(project.runtime)
    return explicit or default or (flink.default_cluster if flink else None)


def pipeline_name(project: Any, job: str) -> str:
    """The job's name in Flink: ``<project>/<env>/<job>``.

    Flink job names are global to a cluster; scoping them by project and environment keeps another
    project's job of the same model name from ever looking like this project's (names cannot hold
    ``/``, so the parts cannot run into each other).
    """
    return f"{project.name}/{project.env}/{job}"


UPGRADE_MODES = ("blocked", "savepoint", "stateless", "last-state")
RETENTION = "execution.checkpointing.externalized-checkpoint-retention"
RETAINED, DELETED = "RETAIN_ON_CANCELLATION", "DELETE_ON_CANCELLATION"  # DELETED: jobs compiled before last-state


NOT_NULL_ENFORCERS = ("error", "drop")  # table.exec.sink.not-null-enforcer, lower-cased
FIXED_DELAY = "fixed-delay"  # the one restart strategy a model may declare (default: Flink's own)


def lifecycle(project: Any, flink: Any) -> dict[str, Any]:
    """How an existing job may be replaced: the model's ``flink.upgrade_mode``, else the defaults'.

    Kept out of the job's definition checksum (``planning.definition_checksum``): changing the
    policy is not a change of the job.
    """
    defaults = default_settings(project)
    mode = (flink.upgrade_mode if flink is not None else None) or (defaults.upgrade_mode if defaults else None)
    ignore = flink.ignore_unclaimed_state if flink is not None else None
    if ignore is None and defaults is not None:
        ignore = defaults.ignore_unclaimed_state
    return {"upgrade_mode": mode or "blocked", "ignore_unclaimed_state": bool(ignore)}


def job_settings(pipeline: str, flink: Any) -> dict[str, str]:
    """The ``SET`` options: the job's name (how the observer finds it), parallelism, checkpoints, TTL,
    the sink's NOT NULL enforcer and the restart strategy."""
    settings = {"pipeline.name": pipeline}
    if flink is not None and flink.parallelism:
        settings["parallelism.default"] = str(flink.parallelism)
    if flink is not None and flink.checkpoint_interval_ms:
        settings["execution.checkpointing.interval"] = f"{flink.checkpoint_interval_ms} ms"
        # A job that fails or is cancelled keeps its last checkpoint: the next plan can resubmit a
        # failed job from there, and a last-state upgrade cancels the job and resubmits from it.
        settings[RETENTION] = RETAINED
    if flink is not None and flink.state_ttl_ms and flink.state_ttl_ms > 0:
        settings["table.exec.state.ttl"] = f"{flink.state_ttl_ms} ms"
    enforcer = flink.sink.not_null_enforcer if flink is not None and flink.sink is not None else None
    if enforcer in NOT_NULL_ENFORCERS:
        settings["table.exec.sink.not-null-enforcer"] = enforcer.upper()
    restart = flink.restart_strategy if flink is not None else None
    if restart is not None and restart.type == FIXED_DELAY and restart.attempts:
        # The job ends FAILED after `attempts` restarts instead of restarting forever (Flink's default
        # with checkpoints); the FAILED runbook (a reviewed resubmit from its checkpoint) applies then.
        settings["restart-strategy.type"] = FIXED_DELAY
        settings["restart-strategy.fixed-delay.attempts"] = str(restart.attempts)
        if restart.delay_ms:
            settings["restart-strategy.fixed-delay.delay"] = f"{restart.delay_ms} ms"
    return settings


def source_statement(
    project: Any,
    relation: Relation,
    job: str,
    extra: tuple[str, ...] = (),
    table: str | None = None,
    kafka: options.KafkaConnection | None = None,
) -> str:
    """The source table's DDL; ``kafka``: the project's ``connection``, when the caller has built it."""
    table = table or ddl.table_name_for_topic(relation.topic)
    columns = relation.table_columns(extra if not relation.columns else ())
    if not columns:
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Flink job '{job}': cannot tell which columns {relation.kind} '{relation.name}' has",
            f"Declare 'columns' on {relation.kind} '{relation.name}'.",
        )
    kafka = kafka or connection(project)
    opts = options.source_options(
        kafka, relation.topic, group_id(project, job), relation.format, relation.ignore_parse_errors
    )
    return ddl.create_table(table, columns, opts, relation.watermark)


def undeclared_columns(
    relations: list[Relation], shape: QueryShape, tables: dict[str, str]
) -> dict[str, tuple[str, ...]]:
    """Per table without declared columns: the column names the query references on it.

    ``alias.col`` goes to the relation the alias names; an unqualified name that no declared
    relation has goes to the first undeclared relation only (two would make it ambiguous). Window
    TVF columns (``window_start`` ...) are produced by the query, not read.
    """
    undeclared = [tables[r.topic] for r in relations if not r.columns]
    if not undeclared:
        return {}
    names_of = {tables[r.topic]: {tables[r.topic]} for r in relations}
    for alias, table in shape.aliases:
        if table in names_of:
            names_of[table].add(alias)
    known = {c.name for r in relations for c in r.columns} | {n for r in relations for n in r.proctime}
    declared_names = {n for names in names_of.values() for n in names}
    out: dict[str, set[str]] = {table: set() for table in undeclared}
    for qualifier, name in shape.references:
        if name in WINDOW_COLUMNS or name in declared_names:
            continue
        if qualifier:
            target = next((t for t in undeclared if qualifier in names_of[t]), None)
        else:
            target = undeclared[0] if name not in known else None
        if target is not None:
            out[target].add(name)
    return {table: tuple(sorted(names)) for table, names in out.items()}


def with_time_columns(relations: list[Relation], shape: QueryShape, tables: dict[str, str]) -> list[Relation]:
    """A relation without event time gets one when the query windows over one of its columns.

    Flink's window functions need a time attribute: a column the query uses as a window's time
    argument is read as ``TIMESTAMP(3)`` with the default watermark (dsl.md section 8).
    """
    out = []
    for relation in relations:
        if relation.event_time is None and shape.time_columns:
            names = {c.name for c in relation.columns}
            found = sorted(c for c in shape.time_columns if c in names or not relation.columns)
            if found:
                relation = attrs.evolve(relation, event_time=found[0], watermark_ms=DEFAULT_WATERMARK_MS)
        out.append(relation)
    return out


def _primary_key(model: Any, shape: QueryShape, outputs: list[str]) -> tuple[str, ...]:
    names: list[str] = []
    for key in shape.group_by:
        match = next((p.name for p in shape.projections if p.name and _same(p, key)), None)
        if match is None and unquote(key) in outputs:
            match = unquote(key)
        if match is None:
            break
        names.append(match)
    else:
        if names:
            return tuple(names)
    if model.primary_key:
        return tuple(model.primary_key)
    raise StreamtError(
        Codes.E501_PARSE_ERROR,
        f"Model '{model.name}' aggregates without a window, so its topic receives updates, but its group keys "
        "are not all selected as columns",
        "Select every GROUP BY expression as an output column, or declare 'primary_key'.",
    )


def _same(projection: Any, key: str) -> bool:
    plain = _alias_at_end(projection.name).sub("", projection.expression)
    return " ".join(plain.split()).lower() == " ".join(key.split()).lower()


@lru_cache(maxsize=1024)  # column names repeat across a project's models
def _alias_at_end(name: str) -> re.Pattern[str]:
    """`` [AS] name`` at the end of a projection (the name optionally backquoted)."""
    return re.compile(r"\s+(AS\s+)?`?" + re.escape(name) + r"`?$", re.IGNORECASE)


def job_name(model: Any) -> str:
    """``<model>`` for a Flink model, ``<model>_processor`` for a topic model with SQL (dsl.md section 18)."""
    return model.name if model.materialized == "flink" else f"{model.name}_processor"


def compile_model(project: Any, model: Any) -> Artifact:
    job = job_name(model)
    given = job_input(project, model)
    relations, tables = given.upstream, given.tables
    # A dependency that did not resolve (validation refuses it first) fails here as it always has.
    query = given.query if given.query is not None else render_query(model, relations, tables)
    shape = analyze(query)
    output = model_relation(project, model, given)
    relations = with_time_columns(relations, shape, tables)
    if not output.columns:
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Flink job '{job}': cannot tell which columns model '{model.name}' produces",
            "Name every SELECT expression (expr AS name) or declare 'columns' on the model.",
        )
    masks = {}
    if not project.runtime.enables("virtual_topic") and model.security is not None:
        masks = {p.column: p.method for p in model.security.policies if p.kind == "mask" and p.column}
    sink = _sink(project, model, shape, output, masks, tables[ddl.sink_key(model.topic_name)], relations)

    # Reorder (declared columns), cast (unknown types) or mask only when needed.
    items: list[tuple[str, str | None]] = []
    needs_wrap = bool(model.columns)
    for column in output.columns:
        if column.name in masks:
            items.append((column.name, mask_expression(column.name, masks[column.name])))
            needs_wrap = True
        elif column.type is None:
            items.append((column.name, f"CAST({ddl.quote_ident(column.name)} AS STRING)"))
            needs_wrap = True
        else:
            items.append((column.name, None))
    insert_query = ddl.wrap_select(query, items) if needs_wrap else query

    extras = undeclared_columns(relations, shape, tables)
    flink = flink_settings(model)
    settings = job_settings(pipeline_name(project, job), flink)
    statements = [ddl.set_statement(k, v) for k, v in sorted(settings.items())]
    kafka = connection(project)
    seen_tables: set[str] = set()
    for relation in relations:
        table = tables[relation.topic]
        if table not in seen_tables:
            seen_tables.add(table)
            statements.append(source_statement(project, relation, job, extras.get(table, ()), table, kafka))
    statements.append(ddl.create_table(sink.table, sink.columns, _sink_options(kafka, sink), None, sink.primary_key))
    statements.append(ddl.insert_into(sink.table, insert_query))

    spec = {
        "job_name": job,
        "model": model.name,
        "cluster": cluster_of(project, flink_cluster(model), default_cluster(project)),
        "pipeline_name": settings["pipeline.name"],
        "lifecycle": lifecycle(project, flink),
        "settings": settings,
        "sources": [{"kind": r.kind, "name": r.name, "topic": r.topic, "table": tables[r.topic]} for r in relations],
        "sink": {
            "table": sink.table,
            "topic": sink.topic,
            "connector": sink.connector,
            "primary_key": list(sink.primary_key),
            "key_fields": list(sink.key_fields),
            "columns": [{"name": c.name, "type": c.type} for c in sink.columns],
        },
        "changelog": "upsert" if sink.primary_key else ("retract" if sink.value_format != options.FORMAT else "append"),
        "masks": [{"column": c, "method": m} for c, m in sorted(masks.items())],
        "statements": statements,
    }
    return Artifact(
        kind=KIND_FLINK_JOB,
        name=model.name,
        identity=job,
        spec=spec,
        ownership=model.ownership.mode,
        provider=PROVIDER,
        depends_on=((KIND_TOPIC, model.topic_name),),
        files={".sql": ddl.script(statements)},
    )


def _sink(
    project: Any,
    model: Any,
    shape: QueryShape,
    output: Relation,
    masks: dict[str, str],
    table: str,
    relations: list[Relation],
) -> Sink:
    names = [c.name for c in output.columns]
    columns = tuple(
        ddl.TableColumn(c.name, "STRING" if c.name in masks or c.type is None else ddl.normalize_type(c.type))
        for c in output.columns
    )
    retracting = shape.outer_join or any(r.format == options.CHANGELOG_FORMAT for r in relations)
    if (shape.group_by and not shape.windowed) or (retracting and (model.primary_key or model.key)):
        key = _primary_key(model, shape, names) if shape.group_by else tuple(model.primary_key or (model.key,))
        return Sink(table, model.topic_name, "upsert-kafka", columns, primary_key=key)
    if format_of(model, shape, relations) == options.CHANGELOG_FORMAT:
        # An outer join retracts rows it emitted (and a changelog input carries retractions on);
        # without a key to upsert on, the topic carries the changelog itself (debezium-json), and
        # jobs reading the model read it the same way.
        return Sink(table, model.topic_name, "kafka", columns, value_format=options.CHANGELOG_FORMAT)
    key_fields = (model.key,) if model.key and model.key in names else ()
    return Sink(table, model.topic_name, "kafka", columns, key_fields=key_fields)


def _sink_options(kafka: options.KafkaConnection, sink: Sink) -> dict[str, str]:
    if sink.connector == "upsert-kafka":
        return options.upsert_sink_options(kafka, sink.topic)
    return options.sink_options(kafka, sink.topic, sink.key_fields, sink.value_format)
