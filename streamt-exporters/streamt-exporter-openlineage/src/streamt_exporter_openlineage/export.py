"""``docs openlineage``: the mapping from one dry-run compile to static OpenLineage events, without I/O.

* Every compiled Kafka topic (managed, external or adopted) becomes one
  ``DatasetEvent`` in the Kafka namespace; every Gateway rule's virtual topic
  becomes one in the Gateway namespace.
* Every actual process (Flink job, Kafka Streams job, Gateway rule, Connect
  connector) becomes one ``JobEvent`` whose inputs and outputs are the
  datasets of the model's direct dependencies and of its own output. A sink
  has no normalized output dataset: it is emitted without one and W111 says
  so. Continuous-test jobs, schemas and removal tombstones are not processes
  of the data flow and are not exported.
* The schema facet comes from declared columns only (model columns, else
  contract columns); a dataset without any gets no schema facet and one W110.

Events carry no run, a fixed ``eventTime`` (the design, not an instant, is
described) and are sorted: datasets by (namespace, name), then jobs by name.
Each line is compact canonical JSON (sorted keys), so the same project gives
the same bytes.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import attrs
from streamt.sdk import (
    KIND_CONNECTOR,
    KIND_FLINK_JOB,
    KIND_GATEWAY_RULE,
    KIND_KAFKA_STREAMS_JOB,
    KIND_TOPIC,
    Codes,
    Diagnostic,
    canonical_json,
)

from streamt_exporter_openlineage.checks import event_problems

# The distribution's pyproject holds its one version (there is no __version__ copy to import).
_VERSION = version("streamt-exporter-openlineage")
PRODUCER = f"https://github.com/streamt/streamt/tree/v{_VERSION}/streamt-exporters/streamt-exporter-openlineage"
CORE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
EVENT_TIME = "1970-01-01T00:00:00Z"
FACETS = {
    "schema": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
    "documentation": "https://openlineage.io/spec/facets/1-1-0/DocumentationDatasetFacet.json"
    "#/$defs/DocumentationDatasetFacet",
    "datasetType": "https://openlineage.io/spec/facets/1-0-1/DatasetTypeDatasetFacet.json#/$defs/DatasetTypeDatasetFacet",
    "jobType": "https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet",
    "jobDocumentation": "https://openlineage.io/spec/facets/1-1-0/DocumentationJobFacet.json#/$defs/DocumentationJobFacet",
}
# artifact kind -> (OpenLineage integration, jobType)
PROCESSES = {
    KIND_FLINK_JOB: ("FLINK", "JOB"),
    KIND_KAFKA_STREAMS_JOB: ("KAFKA_STREAMS", "JOB"),
    KIND_GATEWAY_RULE: ("CONDUKTOR_GATEWAY", "VIRTUAL_TOPIC"),
    KIND_CONNECTOR: ("KAFKA_CONNECT", "SINK_CONNECTOR"),
}
KAFKA, GATEWAY = "kafka", "gateway"


@attrs.frozen
class Namespaces:
    job: str
    kafka: str | None
    gateway: str | None


@attrs.frozen
class Export:
    events: tuple[dict[str, Any], ...]
    warnings: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]

    @property
    def text(self) -> str:
        return "".join(canonical_json(event).decode("utf-8") + "\n" for event in self.events)

    @property
    def counts(self) -> dict[str, int]:
        datasets = sum(1 for e in self.events if "dataset" in e)
        return {"dataset_events": datasets, "events": len(self.events), "job_events": len(self.events) - datasets}


def _facet(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": FACETS[kind], **body}


def _fields(columns: Any) -> list[dict[str, Any]]:
    fields = []
    for position, column in enumerate(columns, start=1):
        field: dict[str, Any] = {"name": column.name, "ordinal_position": position}
        if column.type:
            field["type"] = str(column.type)
        if column.description:
            field["description"] = column.description
        fields.append(field)
    return fields


def _declared_columns(declaration: Any) -> tuple[Any, ...]:
    columns = tuple(getattr(declaration, "columns", ()) or ())
    contract = getattr(declaration, "contract", None)
    if not columns and contract is not None:
        columns = tuple(contract.columns)
    return columns


def _declaration(project: Any, name: str) -> Any:
    return project.source(name) or project.model(name)


def build_export(project: Any, compiled: Any, namespaces: Namespaces) -> Export:
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    # logical name -> (kind of namespace, dataset name) of the dataset that declaration produces
    produced: dict[str, tuple[str, str]] = {}
    processes = []
    for artifact in compiled.artifacts:
        if artifact.kind == KIND_TOPIC:
            produced.setdefault(artifact.name, (KAFKA, artifact.identity))
        elif artifact.kind == KIND_GATEWAY_RULE:
            produced[artifact.name] = (GATEWAY, str(artifact.spec.get("virtualTopic") or artifact.identity))
        if artifact.kind in PROCESSES:
            processes.append(artifact)

    needed = {space for space, _ in produced.values()}
    namespace_of = {KAFKA: namespaces.kafka, GATEWAY: namespaces.gateway}
    for space in sorted(needed):
        if namespace_of[space] is None:
            errors.append(_error(f"No {space} dataset namespace is available.", _namespace_hint(space)))
    if errors:
        return Export((), (), tuple(errors))

    def dataset_id(space: str, name: str) -> dict[str, str]:
        return {"namespace": str(namespace_of[space]), "name": name}

    dataset_events = []
    for logical, (space, name) in produced.items():
        declaration = _declaration(project, logical)
        facets: dict[str, Any] = {
            "datasetType": _facet(
                "datasetType", {"datasetType": "TOPIC", **({"subType": "VIRTUAL"} if space == GATEWAY else {})}
            )
        }
        columns = _declared_columns(declaration)
        if columns:
            facets["schema"] = _facet("schema", {"fields": _fields(columns)})
        else:
            warnings.append(
                Diagnostic(
                    Codes.W110_OPENLINEAGE_SCHEMA_INCOMPLETE,
                    f"'{logical}' declares no columns, so dataset '{name}' has no schema facet.",
                    f"Declare the columns of '{logical}' to export its schema.",
                    details={"dataset": name, "declaration": logical},
                )
            )
        if declaration is not None and declaration.description:
            facets["documentation"] = _facet("documentation", {"description": declaration.description})
        dataset_events.append(_event("DatasetEvent", {"dataset": {**dataset_id(space, name), "facets": facets}}))

    job_events = []
    for artifact in processes:
        model = project.model(artifact.name)
        integration, job_type = PROCESSES[artifact.kind]
        refs = [ref.name for ref in model.dependencies] if model is not None else []
        inputs = sorted(
            {(produced[r][0], produced[r][1]) for r in refs if r in produced},
            key=lambda pair: (str(namespace_of[pair[0]]), pair[1]),
        )
        output = produced.get(artifact.name)
        if artifact.kind == KIND_CONNECTOR:
            output = None  # the destination of a sink is not a Kafka dataset
            warnings.append(
                Diagnostic(
                    Codes.W111_OPENLINEAGE_SINK_OUTPUT_OMITTED,
                    f"Sink job '{artifact.name}' is exported without an output dataset.",
                    "The sink destination has no normalized OpenLineage dataset; only its Kafka inputs are exported.",
                    details={"job": artifact.name},
                )
            )
        job_facets: dict[str, Any] = {
            "jobType": _facet(
                "jobType", {"integration": integration, "jobType": job_type, "processingType": "STREAMING"}
            )
        }
        if model is not None and model.description:
            job_facets["documentation"] = _facet("jobDocumentation", {"description": model.description})
        job_events.append(
            _event(
                "JobEvent",
                {
                    "inputs": [dataset_id(space, name) for space, name in inputs],
                    "job": {
                        "facets": job_facets,
                        "name": f"{project.name}.{artifact.name}",
                        "namespace": namespaces.job,
                    },
                    "outputs": [dataset_id(*output)] if output else [],
                },
            )
        )

    dataset_events.sort(key=lambda e: (e["dataset"]["namespace"], e["dataset"]["name"]))
    job_events.sort(key=lambda e: e["job"]["name"])
    events = tuple(dataset_events + job_events)
    for event in events:
        errors += [_error(p, "Report this mapping problem to streamt.") for p in event_problems(event)]
    errors += _duplicates(events)
    return Export(events, tuple(sorted(warnings, key=lambda w: (w.code.code, w.message))), tuple(errors))


def _event(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"eventTime": EVENT_TIME, "producer": PRODUCER, "schemaURL": f"{CORE}#/$defs/{kind}", **body}


def _duplicates(events: tuple[dict[str, Any], ...]) -> list[Diagnostic]:
    seen: set[tuple[str, str, str]] = set()
    errors = []
    for event in events:
        kind, ident = ("dataset", event["dataset"]) if "dataset" in event else ("job", event["job"])
        key = (kind, ident["namespace"], ident["name"])
        if key in seen:
            errors.append(_error(f"Two {kind}s map to '{key[1]}' / '{key[2]}'.", "Rename one of them."))
        seen.add(key)
    return errors


def _namespace_hint(space: str) -> str:
    option, env = {
        KAFKA: ("--kafka-namespace", "STREAMT_OPENLINEAGE_KAFKA_NAMESPACE"),
        GATEWAY: ("--gateway-namespace", "STREAMT_OPENLINEAGE_GATEWAY_NAMESPACE"),
    }[space]
    return f"Pass {option} kafka://HOST:PORT or set {env}."


def _error(message: str, suggestion: str) -> Diagnostic:
    return Diagnostic(Codes.E506_OPENLINEAGE_INVALID, message, suggestion)
