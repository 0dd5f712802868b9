"""One Flink model -> one ``flink_job`` artifact: SET lines, source and sink DDL, INSERT INTO.

The sink is an append ``kafka`` table, or an ``upsert-kafka`` table with ``PRIMARY KEY ... NOT
ENFORCED`` on the group keys when the query is a non-windowed aggregation (its result rows are
updated, which an append table refuses). The job depends on its sink topic, whose artifact comes
from the Kafka plugin.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
from streamt.artifacts import KIND_FLINK_JOB, KIND_TOPIC, Artifact
from streamt.errors import Codes, StreamtError

from streamt_flink import ddl, options
from streamt_flink.masking import mask_expression
from streamt_flink.query import QueryShape, analyze, substitute_relations, unquote
from streamt_flink.relations import Relation, model_relation, relations_of
from streamt_flink.secrets import kafka_password_placeholder

PROVIDER = "streamt-flink"
_JINJA_MARKERS = ("{{", "{%", "{#")


@attrs.frozen
class Sink:
    table: str
    topic: str
    connector: str
    columns: tuple[ddl.TableColumn, ...]
    primary_key: tuple[str, ...] = ()
    key_fields: tuple[str, ...] = ()


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
    flink = project.runtime.flink
    return explicit or default or (flink.default_cluster if flink else None)


def job_settings(job: str, flink: Any) -> dict[str, str]:
    """The ``SET`` options: the job's name (how the observer finds it), parallelism, checkpoints, TTL."""
    settings = {"pipeline.name": job}
    if flink is not None and flink.parallelism:
        settings["parallelism.default"] = str(flink.parallelism)
    if flink is not None and flink.checkpoint_interval_ms:
        settings["execution.checkpointing.interval"] = f"{flink.checkpoint_interval_ms} ms"
    if flink is not None and flink.state_ttl_ms and flink.state_ttl_ms > 0:
        settings["table.exec.state.ttl"] = f"{flink.state_ttl_ms} ms"
    return settings


def source_statement(project: Any, relation: Relation, job: str, extra: tuple[str, ...] = ()) -> str:
    table = ddl.table_name_for_topic(relation.topic)
    columns = relation.table_columns(extra if not relation.columns else ())
    if not columns:
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Flink job '{job}': cannot tell which columns {relation.kind} '{relation.name}' has",
            f"Declare 'columns' on {relation.kind} '{relation.name}'.",
        )
    opts = options.source_options(connection(project), relation.topic, group_id(project, job))
    return ddl.create_table(table, columns, opts, relation.watermark)


def render_query(model: Any, relations: list[Relation]) -> str:
    """The model SQL with ``source()``/``ref()`` turned into the job's (quoted) table names."""
    by_name = {(r.kind, r.name): ddl.quote_ident(ddl.table_name_for_topic(r.topic)) for r in relations}

    def table(kind: str, name: str) -> str:
        return by_name[("source" if kind == "source" else "model", name)]

    query = substitute_relations(model.sql or "", table)
    if not any(marker in query for marker in _JINJA_MARKERS):
        return query.strip().rstrip(";").strip()
    # Other Jinja (env(), config()) was rendered by the loader, which wrote physical topic names.
    rendered = model.rendered_sql or ""
    for relation in sorted(relations, key=lambda r: -len(r.topic)):
        quoted = ddl.quote_ident(ddl.table_name_for_topic(relation.topic))
        rendered = re.sub(rf"(?<![\w.`-]){re.escape(relation.topic)}(?![\w.`-])", quoted, rendered)
    return rendered.strip().rstrip(";").strip()


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
    expression = projection.expression
    plain = re.sub(r"\s+(AS\s+)?`?" + re.escape(projection.name) + r"`?$", "", expression, flags=re.IGNORECASE)
    return " ".join(plain.split()).lower() == " ".join(key.split()).lower()


def job_name(model: Any) -> str:
    """``<model>`` for a Flink model, ``<model>_processor`` for a topic model with SQL (dsl.md section 18)."""
    return model.name if model.materialized == "flink" else f"{model.name}_processor"


def compile_model(project: Any, model: Any) -> Artifact:
    job = job_name(model)
    relations = relations_of(project, model)
    query = render_query(model, relations)
    shape = analyze(query)
    output = model_relation(project, model)
    if not output.columns:
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"Flink job '{job}': cannot tell which columns model '{model.name}' produces",
            "Name every SELECT expression (expr AS name) or declare 'columns' on the model.",
        )
    masks = {}
    if project.runtime.gateway is None and model.security is not None:
        masks = {p.column: p.method for p in model.security.policies if p.kind == "mask" and p.column}
    names = [c.name for c in output.columns]
    sink = _sink(project, model, shape, output, masks)

    # Reorder (declared columns), cast (unknown types) or mask only when needed.
    items: list[tuple[str, str | None]] = []
    for column in output.columns:
        if column.name in masks:
            items.append((column.name, mask_expression(column.name, masks[column.name])))
        elif column.type is None:
            items.append((column.name, f"CAST({ddl.quote_ident(column.name)} AS STRING)"))
        else:
            items.append((column.name, None))
    needs_wrap = bool(model.columns) or any(expression for _, expression in items)
    insert_query = ddl.wrap_select(query, items) if needs_wrap else query

    referenced = tuple(sorted(shape.identifiers - set(names) - {ddl.table_name_for_topic(r.topic) for r in relations}))
    statements = [ddl.set_statement(k, v) for k, v in sorted(job_settings(job, model.flink).items())]
    seen_tables: set[str] = set()
    for relation in relations:
        table = ddl.table_name_for_topic(relation.topic)
        if table not in seen_tables:
            seen_tables.add(table)
            statements.append(source_statement(project, relation, job, referenced))
    statements.append(ddl.create_table(sink.table, sink.columns, _sink_options(project, sink), None, sink.primary_key))
    statements.append(ddl.insert_into(sink.table, insert_query))

    spec = {
        "job_name": job,
        "model": model.name,
        "cluster": cluster_of(project, model.flink_cluster, _default_cluster(project.defaults.models)),
        "settings": job_settings(job, model.flink),
        "sources": [source_entry(r) for r in relations],
        "sink": {
            "table": sink.table,
            "topic": sink.topic,
            "connector": sink.connector,
            "primary_key": list(sink.primary_key),
            "key_fields": list(sink.key_fields),
            "columns": [{"name": c.name, "type": c.type} for c in sink.columns],
        },
        "changelog": "upsert" if sink.primary_key else "append",
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


def source_entry(relation: Relation) -> dict[str, str]:
    table = ddl.table_name_for_topic(relation.topic)
    return {"kind": relation.kind, "name": relation.name, "topic": relation.topic, "table": table}


def _default_cluster(defaults: Any) -> str | None:
    return defaults.flink_cluster if defaults is not None else None


def _sink(project: Any, model: Any, shape: QueryShape, output: Relation, masks: dict[str, str]) -> Sink:
    names = [c.name for c in output.columns]
    columns = tuple(
        ddl.TableColumn(c.name, "STRING" if c.name in masks or c.type is None else ddl.normalize_type(c.type))
        for c in output.columns
    )
    table = ddl.table_name_for_topic(model.topic_name) + "_sink"
    if shape.updating:
        return Sink(table, model.topic_name, "upsert-kafka", columns, primary_key=_primary_key(model, shape, names))
    key_fields = (model.key,) if model.key and model.key in names else ()
    return Sink(table, model.topic_name, "kafka", columns, key_fields=key_fields)


def _sink_options(project: Any, sink: Sink) -> dict[str, str]:
    if sink.connector == "upsert-kafka":
        return options.upsert_sink_options(connection(project), sink.topic)
    return options.sink_options(connection(project), sink.topic, sink.key_fields)
