"""One sink model -> one ``connector`` artifact bound to a Connect cluster alias."""

from __future__ import annotations

from typing import Any

from streamt.sdk import KIND_CONNECTOR, KIND_TOPIC, Artifact, Codes, Diagnostic, StreamtError

from streamt_connect.config import connect_runtime
from streamt_connect.connector import CONNECTOR_CLASSES, config_value, connector_class, connector_config
from streamt_connect.implementations import ConfigProblem, implementation, map_config
from streamt_connect.naming import connector_name, owner_marker
from streamt_connect.settings import connect_cluster, sink_settings

PROVIDER = "streamt-connect"


def sink_topics(project: Any, model: Any) -> list[str]:
    """Physical topics the connector reads: one per upstream, in dependency order, no repeats."""
    topics: list[str] = []
    for ref in model.dependencies or model.from_:
        topic = project.topic_of(ref)
        if topic is not None and topic not in topics:
            topics.append(topic)
    return topics


def masks_of(model: Any) -> list[tuple[str, str]]:
    if model.security is None:
        return []
    return [(p.column, p.method or "null") for p in model.security.policies if p.kind == "mask" and p.column]


def unknown_connector(model: Any, location: str | None = None) -> Diagnostic | None:
    """``E204`` when ``sink.connector`` is a short name streamt does not know."""
    sink = sink_settings(model)
    if sink is None or not sink.connector or connector_class(sink.connector) is not None:
        return None
    return Diagnostic(
        Codes.E204_MISSING_SINK_CONFIG,
        f"Sink model '{model.name}' names an unknown connector '{sink.connector}'",
        "Use one of " + ", ".join(sorted(CONNECTOR_CLASSES)) + ", or a fully-qualified connector class.",
        location,
    )


def refused_config(model: Any, location: str | None = None) -> Diagnostic | None:
    """``E204`` when the connector's keys are known and ``sink.config`` declares one it does not accept."""
    sink = sink_settings(model)
    klass = connector_class(sink.connector) if sink is not None and sink.connector else None
    impl = implementation(klass) if klass else None
    if impl is None or sink is None:
        return None
    try:
        map_config(impl, {str(k): config_value(v) for k, v in sink.config.items()})
    except ConfigProblem as problem:
        message = f"Sink model '{model.name}': {problem}"
        return Diagnostic(Codes.E204_MISSING_SINK_CONFIG, message, problem.suggestion, location)
    return None


def sink_problem(model: Any, location: str | None = None) -> Diagnostic | None:
    return unknown_connector(model, location) or refused_config(model, location)


def compile_sink(project: Any, model: Any) -> Artifact:
    sink = sink_settings(model)
    if sink is None or not sink.connector:
        raise StreamtError(
            Codes.E204_MISSING_SINK_CONFIG,
            f"Sink model '{model.name}' has no connector configuration",
            "Add sink: {connector: jdbc-sink, config: {...}}.",
        )
    problem = sink_problem(model)
    if problem is not None:
        raise StreamtError.from_diagnostics([problem])
    topics = sink_topics(project, model)
    name = connector_name(project, model)
    owner = owner_marker(project.name, project.env) if model.ownership.mode == "managed" else None
    config = connector_config(name, sink.connector, topics, sink.config, masks_of(model), owner)
    connect = connect_runtime(project.runtime)
    spec = {
        "name": name,
        "cluster": connect_cluster(model) or (connect.default_cluster if connect else None),
        "config": config,
    }
    return Artifact(
        kind=KIND_CONNECTOR,
        name=model.name,
        identity=name,
        spec=spec,
        ownership=model.ownership.mode,
        provider=PROVIDER,
        depends_on=tuple((KIND_TOPIC, topic) for topic in topics),
    )
