"""A ``topic`` model with ``executor: kafka_streams`` -> a versioned runner plan artifact.

The plan is data the packaged runner reads: input and output topics, typed projections and
AND-joined predicates over raw JSON values, plus the runtime it runs with (image digest, Docker
network, brokers, initial offset), and the names the deployer gives it on the Docker Engine (the
container, the named state volume, the ownership labels' project and environment). The runner
ignores the fields it does not need. Bump ``PLAN_VERSION`` whenever the shape changes, so that a
runner refuses a plan it cannot read.
"""

from __future__ import annotations

import re
from typing import Any

from streamt.sdk import KIND_KAFKA_STREAMS_JOB, KIND_TOPIC, Artifact, Codes, Diagnostic, StreamtError, produces

from streamt_kstreams.config import kafka_streams_runtime
from streamt_kstreams.kinds import KAFKA_STREAMS_JOB
from streamt_kstreams.subset import RunnerQuery, SubsetError, parse

PROVIDER = "streamt-kstreams"
PLAN_VERSION = 1
SUPPORTED_TYPES = ("STRING", "BOOLEAN", "BIGINT")
# Which literal a column of each type may be compared with, and with which operators.
_LITERAL_TYPES: dict[str, type] = {"STRING": str, "BOOLEAN": bool, "BIGINT": int}
_EQUALITY_ONLY = ("STRING", "BOOLEAN")
NON_JSON_FORMATS = ("avro", "protobuf")


def runs_on_kafka_streams(model: Any) -> bool:
    """Does the runner run this model? The registration of ``KAFKA_STREAMS_JOB`` says (core dispatches by it too)."""
    return produces(KAFKA_STREAMS_JOB, model)


def input_columns(project: Any, query: RunnerQuery) -> dict[str, str] | None:
    """Declared input column types (upper-case), ``None`` when the input declares none."""
    declaration = project.source(query.input_name) if query.input_kind == "source" else project.model(query.input_name)
    columns = getattr(declaration, "columns", ()) if declaration is not None else ()
    if not columns:
        return None
    return {c.name: (c.type or "STRING").upper() for c in columns}


def check(project: Any, model: Any) -> RunnerQuery:
    """The parsed, type-checked runner query; ``StreamtError`` E501 when outside the subset."""
    location = project.locations.get(("model", model.name))
    try:
        query = parse(model.sql)
        _require_json(project, model, query)
        types = input_columns(project, query)
        if types is None:
            raise SubsetError(f"input '{query.input_name}' declares no columns, so the runner cannot type its values")
        for column in [p.column for p in query.projections] + [p.column for p in query.predicates]:
            if column not in types:
                raise SubsetError(f"column '{column}' is not declared on input '{query.input_name}'")
            if types[column] not in SUPPORTED_TYPES:
                raise SubsetError(
                    f"column '{column}' has type {types[column]}; the runner supports STRING, BOOLEAN, BIGINT"
                )
        for predicate in query.predicates:
            _check_predicate(predicate.column, types[predicate.column], predicate.op, predicate.value)
    except SubsetError as problem:
        raise StreamtError.from_diagnostics([subset_diagnostic(model, str(problem), location)]) from None
    return query


def _require_json(project: Any, model: Any, query: RunnerQuery) -> None:
    """The runner reads and writes plain JSON values; registry-encoded Avro/Protobuf is refused, not guessed."""
    source = project.source(query.input_name) if query.input_kind == "source" else project.model(query.input_name)
    for role, declaration in (("input", source), ("output", model)):
        schema = getattr(declaration, "schema", None)
        if schema is None:
            continue
        # A declared schema without a format is Avro (as the Schema Registry provider registers it).
        value_format = str(schema.format or "avro").lower()
        if value_format in NON_JSON_FORMATS:
            raise SubsetError(
                f"{role} '{declaration.name}' has {value_format.capitalize()} values; the runner reads and writes "
                "plain JSON values only"
            )


def _check_predicate(column: str, sql_type: str, op: str, value: Any) -> None:
    if op.startswith("IS "):
        return
    expected = _LITERAL_TYPES[sql_type]
    # bool is an int subclass in Python: compare exact types so that TRUE never passes as 1.
    if type(value) is not expected:
        raise SubsetError(f"column '{column}' ({sql_type}) is compared with {value!r}")
    if sql_type in _EQUALITY_ONLY and op not in ("=", "<>"):
        raise SubsetError(f"column '{column}' ({sql_type}) supports only = and <>, not {op}")


def subset_diagnostic(model: Any, problem: str, location: str | None) -> Diagnostic:
    return Diagnostic(
        Codes.E501_PARSE_ERROR,
        f"Model '{model.name}' runs on the Kafka Streams runner, but its SQL is outside the runner subset: {problem}",
        "Keep to SELECT columns FROM one source()/ref() WHERE col <op> literal AND ..., or use executor: flink.",
        location,
    )


def application_id(project: Any, model: Any) -> str:
    raw = f"streamt-{project.name}-{project.env}-{model.name}"
    return re.sub(r"[^A-Za-z0-9._-]", "_", raw)


def compile_plan(project: Any, model: Any) -> Artifact:
    query = check(project, model)
    types = input_columns(project, query) or {}
    ref = next(d for d in model.dependencies if d.name == query.input_name)
    input_topic = project.topic_of(ref)
    streams = kafka_streams_runtime(project.runtime)
    app_id = application_id(project, model)
    spec = {
        "plan_version": PLAN_VERSION,
        "application_id": app_id,
        "project": project.name,
        "environment": project.env,
        "container_name": app_id,
        "state_volume": f"{app_id}-state",
        "model": model.name,
        "input": {"kind": query.input_kind, "name": query.input_name, "topic": input_topic},
        "output_topic": model.topic_name,
        "value_format": "json",
        "projections": [{"column": p.column, "name": p.name, "type": types[p.column]} for p in query.projections],
        "predicates": [_predicate_spec(p, types) for p in query.predicates],
        "runtime": {
            "image": streams.image if streams else None,
            "docker_network": streams.docker_network if streams else None,
            "bootstrap_servers": (streams.bootstrap_servers if streams else None)
            or project.runtime.kafka.internal_servers,
            "initial_offset": streams.initial_offset if streams else None,
        },
    }
    return Artifact(
        kind=KIND_KAFKA_STREAMS_JOB,
        name=model.name,
        identity=model.name,
        spec=spec,
        ownership=model.ownership.mode,
        provider=PROVIDER,
        depends_on=((KIND_TOPIC, input_topic), (KIND_TOPIC, model.topic_name)),
    )


def _predicate_spec(predicate: Any, types: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"column": predicate.column, "op": predicate.op, "type": types[predicate.column]}
    if not predicate.op.startswith("IS "):
        out["value"] = predicate.value
    return out
