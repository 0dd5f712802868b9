"""``docs datahub``: one dry-run compile -> DataHub v1.7.0 simplified Metadata Change Proposals, without I/O.

* One ``dataFlow`` per project: ``urn:li:dataFlow:(streamt,<catalog-id>,<FABRIC>)``.
* One ``dataset`` per compiled Kafka topic (source or topic output), with the native Kafka URN
  ``urn:li:dataset:(urn:li:dataPlatform:kafka,[<instance>.]<topic>,<FABRIC>)`` as DataHub's Kafka
  ingestion names it; one per Gateway virtual topic on the explicit Gateway platform and instance.
* One ``dataJob`` per actual process (Flink job, Kafka Streams job, Gateway rule, Connect connector),
  ``urn:li:dataJob:(<flow urn>,<model>)``, with ``dataJobInputOutput`` naming its direct input and output
  datasets. Process-free topics get no job; a sink gets no invented destination (W115).
* A model contract contributes only ``streamt.contract.status`` (``declared``/``enforced``).
* Exposures (W116), tags (W117) and owners (W118) are not mapped yet; each occurrence is reported.

Proposals are sorted by (entity type, URN, aspect) and serialised as canonical JSON (sorted keys,
two-space indent, trailing newline): the same project always gives the same bytes.
"""

from __future__ import annotations

import json
import re
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
)

from streamt_exporter_datahub.codes import DATAHUB_INVALID
from streamt_exporter_datahub.fabrics import FABRICS

DATAHUB_VERSION = "1.7.0"
ORCHESTRATOR = "streamt"
KAFKA_PLATFORM = "urn:li:dataPlatform:kafka"
PROCESSES = {
    KIND_FLINK_JOB: "flink",
    KIND_KAFKA_STREAMS_JOB: "kafka_streams",
    KIND_GATEWAY_RULE: "gateway",
    KIND_CONNECTOR: "connect",
}
# What may sit inside a URN tuple without quoting: no comma, parenthesis or whitespace.
_ID = re.compile(r"^[A-Za-z0-9_.\-:/@]+$")
_PLATFORM_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_ENTITY_ORDER = {"dataFlow": 0, "dataset": 1, "dataJob": 2}
_ASPECTS = {
    "dataFlow": {"dataFlowInfo"},
    "dataset": {"datasetProperties", "subTypes", "dataPlatformInstance", "status"},
    "dataJob": {"dataJobInfo", "dataJobInputOutput", "status"},
}


@attrs.frozen
class Identity:
    catalog_id: str
    fabric: str
    kafka_instance: str | None
    gateway_platform: str | None
    gateway_instance: str | None


@attrs.frozen
class Export:
    proposals: tuple[dict[str, Any], ...]
    warnings: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]

    @property
    def text(self) -> str:
        return json.dumps(list(self.proposals), sort_keys=True, indent=2, ensure_ascii=False) + "\n"

    @property
    def counts(self) -> dict[str, Any]:
        entities: dict[str, set[str]] = {}
        aspects: dict[str, int] = {}
        for p in self.proposals:
            entities.setdefault(p["entityType"], set()).add(p["entityUrn"])
            aspects[p["aspectName"]] = aspects.get(p["aspectName"], 0) + 1
        return {
            "aspects": dict(sorted(aspects.items())),
            "entities": {kind: len(urns) for kind, urns in sorted(entities.items())},
            "proposals": len(self.proposals),
        }


def _error(message: str, suggestion: str) -> Diagnostic:
    return Diagnostic(DATAHUB_INVALID, message, suggestion)


def identity_problems(identity: Identity) -> list[Diagnostic]:
    errors = []
    if identity.fabric not in FABRICS:
        errors.append(
            _error(
                f"--fabric {identity.fabric!r} is not a DataHub v1.7.0 FabricType.", f"Use one of {', '.join(FABRICS)}."
            )
        )
    if not _ID.match(identity.catalog_id or ""):
        errors.append(
            _error(
                "--catalog-id must be non-empty without commas, parentheses or whitespace.", "Pass a stable flow ID."
            )
        )
    for option, value in (
        ("--kafka-platform-instance", identity.kafka_instance),
        ("--gateway-platform-instance", identity.gateway_instance),
    ):
        if value is not None and not _ID.match(value):
            errors.append(
                _error(
                    f"{option} must not be empty or contain commas, parentheses or whitespace.",
                    "Pass the exact instance ID.",
                )
            )
    if identity.gateway_platform is not None and not _PLATFORM_ID.match(identity.gateway_platform):
        errors.append(
            _error(
                "--gateway-platform-id must be a bare lowercase platform ID (no urn:li: prefix).",
                "For example conduktor-gateway.",
            )
        )
    if (identity.gateway_platform is None) != (identity.gateway_instance is None):
        errors.append(
            _error("--gateway-platform-id and --gateway-platform-instance go together.", "Pass both or neither.")
        )
    return errors


def _proposal(entity_type: str, urn: str, aspect_name: str, aspect: dict[str, Any]) -> dict[str, Any]:
    return {
        "aspect": {"json": aspect},
        "aspectName": aspect_name,
        "changeType": "UPSERT",
        "entityType": entity_type,
        "entityUrn": urn,
    }


def _warn(code: Any, message: str, suggestion: str, **details: str) -> Diagnostic:
    return Diagnostic(code, message, suggestion, details=dict(details))


def build_export(project: Any, compiled: Any, identity: Identity) -> Export:
    errors = identity_problems(identity)
    if errors:
        return Export((), (), tuple(errors))
    warnings: list[Diagnostic] = []
    fabric = identity.fabric
    flow = f"urn:li:dataFlow:({ORCHESTRATOR},{identity.catalog_id},{fabric})"
    proposals = [
        _proposal(
            "dataFlow",
            flow,
            "dataFlowInfo",
            _props(
                project.name,
                getattr(project.info, "description", None),
                {
                    "streamt.project": project.name,
                    "streamt.project.version": str(project.info.version),
                },
            ),
        ),
    ]
    datasets: dict[str, str] = {}  # logical declaration -> dataset urn it produces
    processes = []
    for artifact in compiled.artifacts:
        if artifact.kind == KIND_TOPIC:
            datasets.setdefault(
                artifact.name,
                _dataset(
                    proposals,
                    KAFKA_PLATFORM,
                    identity.kafka_instance,
                    artifact.identity,
                    fabric,
                    project,
                    artifact.name,
                    "Topic",
                ),
            )
        elif artifact.kind == KIND_GATEWAY_RULE:
            if identity.gateway_platform is None or identity.gateway_instance is None:
                errors.append(
                    _error(
                        f"Gateway virtual topic '{artifact.identity}' needs an explicit DataHub platform.",
                        "Pass --gateway-platform-id and --gateway-platform-instance.",
                    )
                )
                continue
            platform = f"urn:li:dataPlatform:{identity.gateway_platform}"
            name = str(artifact.spec.get("virtualTopic") or artifact.identity)
            datasets[artifact.name] = _dataset(
                proposals, platform, identity.gateway_instance, name, fabric, project, artifact.name, "Virtual Topic"
            )
        if artifact.kind in PROCESSES:
            processes.append(artifact)
    if errors:
        return Export((), (), tuple(errors))

    for artifact in processes:
        model = project.model(artifact.name)
        job = f"urn:li:dataJob:({flow},{artifact.name})"
        inputs = sorted({datasets[ref.name] for ref in (model.dependencies if model else ()) if ref.name in datasets})
        outputs = (
            [] if artifact.kind == KIND_CONNECTOR else [datasets[artifact.name]] if artifact.name in datasets else []
        )
        if artifact.kind == KIND_CONNECTOR:
            warnings.append(
                _warn(
                    Codes.W115_DATAHUB_SINK_OUTPUT_OMITTED,
                    f"Sink DataJob '{artifact.name}' is emitted without a destination Dataset.",
                    "streamt does not invent the sink's destination; catalog it with its own DataHub source.",
                    job=artifact.name,
                )
            )
        custom = {"streamt.process": PROCESSES[artifact.kind], "streamt.model": artifact.name}
        if model is not None and artifact.name not in datasets and model.contract is not None:
            custom["streamt.contract.status"] = _contract_status(model.contract)
        info = {"customProperties": custom, "flowUrn": flow, "name": artifact.name, "type": {"string": "STREAMING"}}
        if model is not None and model.description:
            info["description"] = model.description
        proposals.append(_proposal("dataJob", job, "dataJobInfo", info))
        proposals.append(
            _proposal("dataJob", job, "dataJobInputOutput", {"inputDatasets": inputs, "outputDatasets": outputs})
        )

    warnings += _omissions(project)
    proposals.sort(key=lambda p: (_ENTITY_ORDER[p["entityType"]], p["entityUrn"], p["aspectName"]))
    errors += check_proposals(proposals)
    return Export(tuple(proposals), tuple(warnings), tuple(errors))


def _contract_status(contract: Any) -> str:
    return "enforced" if contract.enforced else "declared"


def _props(name: str, description: str | None, custom: dict[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {"customProperties": custom, "name": name}
    if description:
        body["description"] = description
    return body


def _dataset(
    proposals: list[dict[str, Any]],
    platform: str,
    instance: str | None,
    name: str,
    fabric: str,
    project: Any,
    logical: str,
    subtype: str,
) -> str:
    qualified = f"{instance}.{name}" if instance else name
    urn = f"urn:li:dataset:({platform},{qualified},{fabric})"
    declaration = project.source(logical) or project.model(logical)
    custom = {"streamt.declaration": logical}
    contract = getattr(declaration, "contract", None)
    if contract is not None:
        custom["streamt.contract.status"] = _contract_status(contract)
    properties = _props(name, getattr(declaration, "description", None), custom)
    properties.update({"qualifiedName": name, "tags": []})
    proposals.append(_proposal("dataset", urn, "datasetProperties", properties))
    proposals.append(_proposal("dataset", urn, "subTypes", {"typeNames": [subtype]}))
    if instance:
        proposals.append(
            _proposal(
                "dataset",
                urn,
                "dataPlatformInstance",
                {
                    "instance": f"urn:li:dataPlatformInstance:({platform},{instance})",
                    "platform": platform,
                },
            )
        )
    return urn


def _omissions(project: Any) -> list[Diagnostic]:
    warnings = []
    for exposure in sorted(project.exposures, key=lambda e: e.name):
        warnings.append(
            _warn(
                Codes.W116_DATAHUB_EXPOSURE_OMITTED,
                f"Exposure '{exposure.name}' is omitted.",
                "Exposures have no DataHub mapping in this release.",
                exposure=exposure.name,
            )
        )
    declarations = sorted([*project.sources, *project.models], key=lambda d: d.name)
    for declaration in declarations:
        if declaration.tags:
            warnings.append(
                _warn(
                    Codes.W117_DATAHUB_TAGS_OMITTED,
                    f"The tags of '{declaration.name}' are not mapped.",
                    "Tag mapping to DataHub is deferred; manage tags in DataHub.",
                    declaration=declaration.name,
                )
            )
    for declaration in declarations:
        if declaration.owner:
            warnings.append(
                _warn(
                    Codes.W118_DATAHUB_OWNER_OMITTED,
                    f"The owner of '{declaration.name}' is not mapped.",
                    "Ownership mapping to DataHub is deferred; manage owners in DataHub.",
                    declaration=declaration.name,
                )
            )
    return warnings


def check_proposals(proposals: list[dict[str, Any]]) -> list[Diagnostic]:
    """Our own closed structural check of the simplified MCP form, before anything is written."""
    problems = []
    seen = set()
    for p in proposals:
        where = f"{p.get('entityType')} {p.get('entityUrn')} {p.get('aspectName')}"
        if set(p) != {"aspect", "aspectName", "changeType", "entityType", "entityUrn"} or p["changeType"] != "UPSERT":
            problems.append(f"{where}: not a simplified UPSERT proposal")
            continue
        kind = p["entityType"]
        if p["aspectName"] not in _ASPECTS.get(kind, set()):
            problems.append(f"{where}: aspect not allowed for {kind}")
        if not str(p["entityUrn"]).startswith(f"urn:li:{kind}:("):
            problems.append(f"{where}: the URN does not match the entity type")
        if (
            not isinstance(p["aspect"], dict)
            or set(p["aspect"]) != {"json"}
            or not isinstance(p["aspect"]["json"], dict)
        ):
            problems.append(f"{where}: the aspect must be {{'json': {{...}}}}")
        key = (p["entityUrn"], p["aspectName"])
        if key in seen:
            problems.append(f"{where}: duplicate aspect")
        seen.add(key)
        urns = [u for side in ("inputDatasets", "outputDatasets") for u in p["aspect"]["json"].get(side, [])]
        problems += [
            f"{where}: {u} is not a dataset URN"
            for u in urns
            if not u.startswith("urn:li:dataset:(urn:li:dataPlatform:")
        ]
    return [_error(problem, "Report this mapping problem to streamt.") for problem in problems]
