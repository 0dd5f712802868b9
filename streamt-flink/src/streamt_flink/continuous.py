"""Continuous tests -> a Flink job ``test_<test>`` writing one row per violation (dsl.md section 11).

Row-level assertions become ``SELECT ... WHERE <violated>`` branches of one ``UNION ALL``
written to the test's own failures topic, ``_streamt_test_failures.<project>.<env>.<test>``
(``failures_topic``), which the test declares as a managed topic artifact beside its job
(``failures_topic_artifact``): apply creates it before the job, so the job never writes to a topic
that does not exist, and no other project or environment shares it; ``unique_key``/``unique``, ``throughput`` and
``distribution`` become windowed branches and ``foreign_key`` a processing-time interval join
(``continuous_windows``). The schema-only ``accepted_types`` is not compiled: the job spec lists it
under ``skipped``.
"""

from __future__ import annotations

from typing import Any

import attrs
from streamt.sdk import KIND_TEST_JOB, KIND_TOPIC, Artifact

from streamt_flink import ddl, options
from streamt_flink.continuous_windows import PROC, WINDOW_VIEW, foreign_key_parts, window_view, windowed_branches
from streamt_flink.job import PROVIDER, cluster_of, connection, job_settings, pipeline_name, source_statement
from streamt_flink.relations import Relation, model_relation, source_relation

FAILURES_PREFIX = "_streamt_test_failures"
FAILURES_TABLE = "_streamt_test_failures_sink"
KAFKA_PROVIDER = "streamt-kafka"  # topics are created by the Kafka provider, whoever declares them
FAILURE_COLUMNS = (
    ddl.TableColumn("test_name", "STRING"),
    ddl.TableColumn("model", "STRING"),
    ddl.TableColumn("assertion", "STRING"),
    ddl.TableColumn("column_name", "STRING"),
    ddl.TableColumn("observed", "STRING"),
    ddl.TableColumn("detected_at", "TIMESTAMP_LTZ(3)"),
)


def literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return ddl.quote_string(str(value))


def _violations(kind: str, body: Any) -> list[tuple[str | None, str]]:
    """``(column, violated condition)`` pairs for one assertion; empty when not row-level."""
    body = body if isinstance(body, dict) else {}
    column = body.get("column")
    q = ddl.quote_ident
    if kind == "not_null":
        return [(c, f"{q(c)} IS NULL") for c in body.get("columns") or ()]
    if kind == "accepted_values" and column and body.get("values"):
        values = ", ".join(literal(v) for v in body["values"])
        return [(column, f"{q(column)} IS NOT NULL AND {q(column)} NOT IN ({values})")]
    if kind == "range" and column:
        bounds = []
        if body.get("min") is not None:
            bounds.append(f"{q(column)} < {literal(body['min'])}")
        if body.get("max") is not None:
            bounds.append(f"{q(column)} > {literal(body['max'])}")
        return [(column, " OR ".join(bounds))] if bounds else []
    if kind == "max_lag" and column and body.get("max_seconds") is not None:
        # The cast makes a column of unknown type (read as STRING) comparable; a timestamp is unchanged.
        lag = f"TIMESTAMPDIFF(SECOND, CAST({q(column)} AS TIMESTAMP(3)), CAST(CURRENT_TIMESTAMP AS TIMESTAMP(3)))"
        return [(column, f"{lag} > {int(body['max_seconds'])}")]
    if kind == "custom_sql" and body.get("where"):
        return [(body.get("detail_column"), str(body["where"]))]
    if kind == "expression" and body.get("sql"):
        return [(None, f"NOT ({body['sql']})")]
    return []


def compile_test(project: Any, test: Any) -> Artifact | None:
    model = project.model(test.model)
    source = project.source(test.model) if model is None else None
    if model is None and source is None:
        return None
    relation: Relation = model_relation(project, model) if model is not None else source_relation(source)
    table = ddl.quote_ident(ddl.table_name_for_topic(relation.topic))
    job = f"test_{test.name}"
    branches: list[str] = []
    skipped: list[str] = []
    referenced: set[str] = set()
    windowed = False
    window_columns: set[str] = set()
    references: list[str] = []
    for index, assertion in enumerate(test.assertions):
        for kind, body in assertion.items():
            if kind == "foreign_key":
                parts = foreign_key_parts(project, test, index, body if isinstance(body, dict) else {}, job)
                if parts is None:
                    skipped.append(kind)
                    continue
                references.append(parts[0])
                branches.append(parts[1])
                referenced.add(parts[2])
                window_columns.add(parts[2])
                windowed = True
                continue
            stateful = windowed_branches(test, kind, body if isinstance(body, dict) else {}, WINDOW_VIEW)
            if stateful is not None:
                branches += stateful[0]
                referenced |= stateful[1]
                window_columns |= stateful[1]
                windowed = windowed or bool(stateful[0])
                if not stateful[0]:
                    skipped.append(kind)
                continue
            violations = _violations(kind, body)
            if not violations:
                skipped.append(kind)
            for column, condition in violations:
                if column:
                    referenced.add(column)
                observed = f"CAST({ddl.quote_ident(column)} AS STRING)" if column else "CAST(NULL AS STRING)"
                branches.append(
                    f"SELECT {ddl.quote_string(test.name)} AS `test_name`, {ddl.quote_string(test.model)} AS `model`, "
                    f"{ddl.quote_string(kind)} AS `assertion`, "
                    f"{ddl.quote_string(column) if column else 'CAST(NULL AS STRING)'} AS `column_name`, "
                    f"{observed} AS `observed`, CURRENT_TIMESTAMP AS `detected_at`\n"
                    f"FROM {table}\nWHERE {condition}"
                )
    if not branches:
        return None
    pipeline = pipeline_name(project, job)
    statements = [ddl.set_statement(k, v) for k, v in sorted(job_settings(pipeline, None).items())]
    if windowed:  # the windowed assertions need a processing-time attribute on the source table
        relation = attrs.evolve(relation, proctime=(*relation.proctime, PROC))
    statements.append(source_statement(project, relation, job, tuple(sorted(referenced))))
    if windowed:
        statements += references
        statements.append(window_view(table, sorted(window_columns)))
    failures = failures_topic(project, test.name)
    sink_options = options.sink_options(connection(project), failures)
    statements.append(ddl.create_table(FAILURES_TABLE, FAILURE_COLUMNS, sink_options))
    statements.append(ddl.insert_into(FAILURES_TABLE, "\nUNION ALL\n".join(branches)))
    defaults = project.defaults.tests
    spec = {
        "job_name": job,
        "pipeline_name": pipeline,
        "test": test.name,
        "model": test.model,
        "cluster": cluster_of(project, test.flink_cluster, defaults.flink_cluster if defaults else None),
        "failures_topic": failures,
        "skipped": sorted(set(skipped)),
        "statements": statements,
    }
    return Artifact(
        kind=KIND_TEST_JOB,
        name=test.name,
        identity=job,
        spec=spec,
        provider=PROVIDER,
        # The tested topic, and the failures topic the test declares (failures_topic_artifact).
        depends_on=((KIND_TOPIC, relation.topic), (KIND_TOPIC, failures)),
        files={".sql": ddl.script(statements)},
    )


def failures_topic(project: Any, test: str) -> str:
    """The topic a continuous test's job writes its violations to: this project's, environment's and test's."""
    return f"{FAILURES_PREFIX}.{project.name}.{project.env}.{test}"


def failures_topic_artifact(project: Any, job: Artifact) -> Artifact:
    """The managed topic ``job`` writes to: one partition (violations are few), the project's replication."""
    topic = str(job.spec["failures_topic"])
    spec = {"config": {}, "name": topic, "partitions": 1, "replication_factor": project.defaults.replication_factor}
    return Artifact(KIND_TOPIC, job.name, topic, spec, ownership="managed", provider=KAFKA_PROVIDER)
