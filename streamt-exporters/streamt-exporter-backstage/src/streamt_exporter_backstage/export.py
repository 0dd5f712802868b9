"""``docs backstage``: one dry-run compile -> Backstage Software Catalog entities, without I/O.

* One ``System`` per project, named exactly ``--catalog-id``.
* One ``Component`` per actual process: Flink job (``flink-job``), Kafka Streams job (``kafka-streams-app``),
  Gateway rule (``gateway-rule``) and Connect sink connector (``kafka-connect-sink``). Its ``spec.dependsOn``
  names the Resources it reads. A sink's destination is not invented (W113).
* One ``Resource`` per compiled Kafka topic (``kafka-topic``, depends on ``--kafka-cluster-ref``) and per
  Gateway virtual topic (``gateway-virtual-topic``, depends on ``--gateway-cluster-ref`` and its physical
  topic). An output Resource depends on the Component that produces it.
* Owners: a declaration's owner label mapped through ``--owner-map``, else ``--default-owner-ref``.
* Exposures are omitted (W114, once each); continuous-test jobs, schemas and tombstones are not exported.

Entities are sorted (System, Component, Resource; then by name) and dumped with sorted keys, so the same
project always gives the same bytes. Every problem is an ``E507_BACKSTAGE_INVALID`` diagnostic.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import yaml
from streamt.sdk import (
    KIND_CONNECTOR,
    KIND_FLINK_JOB,
    KIND_GATEWAY_RULE,
    KIND_KAFKA_STREAMS_JOB,
    KIND_TOPIC,
    Codes,
    Diagnostic,
)

from streamt_exporter_backstage.codes import BACKSTAGE_INVALID

API_VERSION = "backstage.io/v1alpha1"
CATALOG_MODEL_VERSION = "1.10.3"  # the @backstage/catalog-model release whose schemas the tests validate against
ANNOTATION = "streamt.dev"
COMPONENT_TYPES = {
    KIND_FLINK_JOB: "flink-job",
    KIND_KAFKA_STREAMS_JOB: "kafka-streams-app",
    KIND_GATEWAY_RULE: "gateway-rule",
    KIND_CONNECTOR: "kafka-connect-sink",
}
KAFKA_TOPIC = "kafka-topic"
VIRTUAL_TOPIC = "gateway-virtual-topic"
KIND_ORDER = {"System": 0, "Component": 1, "Resource": 2}
MAX_NAME = 63
# Backstage's name rule: 1..63 chars, alphanumeric runs separated by single '-', '_' or '.'.
NAME = re.compile(r"^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*$")
# Backstage's namespace rule (DNS label); this exporter also requires it lowercase.
NAMESPACE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
REF = re.compile(r"^(?P<kind>[A-Za-z]+):(?P<namespace>[^/:]+)/(?P<name>[^/:]+)$")
LIFECYCLE = re.compile(r"^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*$")
OWNER_KINDS = ("group", "user")


@attrs.frozen
class Options:
    catalog_id: str
    namespace: str
    default_owner: str
    lifecycle: str
    owner_map: str | None = None
    kafka_cluster: str | None = None
    gateway_cluster: str | None = None
    domain: str | None = None


@attrs.frozen
class Export:
    entities: tuple[dict[str, Any], ...]
    warnings: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]

    @property
    def text(self) -> str:
        return canonical_yaml(self.entities)

    @property
    def counts(self) -> dict[str, int]:
        kinds = Counter(e["kind"] for e in self.entities)
        return {kind: kinds.get(kind, 0) for kind in sorted(KIND_ORDER)}


def canonical_yaml(entities: tuple[dict[str, Any], ...]) -> str:
    return "".join(
        "---\n" + yaml.safe_dump(e, sort_keys=True, default_flow_style=False, allow_unicode=True, width=4096)
        for e in entities
    )


def _error(message: str, suggestion: str) -> Diagnostic:
    return Diagnostic(BACKSTAGE_INVALID, message, suggestion)


def valid_name(value: str) -> bool:
    return len(value) <= MAX_NAME and NAME.match(value) is not None


def valid_namespace(value: str) -> bool:
    return len(value) <= MAX_NAME and NAMESPACE.match(value) is not None


def ref_problem(value: str | None, kinds: tuple[str, ...]) -> str | None:
    """Why ``value`` is not a full ``kind:namespace/name`` ref of one of ``kinds`` (None when it is)."""
    if not isinstance(value, str):
        return "is not a string"
    match = REF.match(value)
    if match is None:
        return "is not a full `kind:namespace/name` entity ref"
    if match["kind"] not in kinds:
        return f"must name a {' or '.join(kinds)} entity (lowercase kind), not {match['kind']!r}"
    if not valid_namespace(match["namespace"]):
        return f"has an invalid namespace {match['namespace']!r} (lowercase a-z, 0-9 and '-', at most 63)"
    if not valid_name(match["name"]):
        return f"has an invalid name {match['name']!r} (a-z, A-Z, 0-9 separated by single '-', '_' or '.')"
    return None


def sanitize(raw: str) -> str:
    """A deterministic Backstage name for ``raw``; collisions are detected by the caller."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", raw)
    name = re.sub(r"[-_.]{2,}", "-", name).strip("-_.")
    if not name:
        name = "x"
    if len(name) > MAX_NAME:
        digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
        name = name[: MAX_NAME - 9].rstrip("-_.") + "-" + digest
    return name


def option_problems(options: Options) -> list[Diagnostic]:
    errors = []
    if not valid_name(options.catalog_id or ""):
        errors.append(
            _error(
                f"--catalog-id {options.catalog_id!r} is not a valid Backstage entity name.",
                "Use 1-63 characters: letters and digits separated by single '-', '_' or '.'.",
            )
        )
    if not valid_namespace(options.namespace or ""):
        errors.append(
            _error(
                f"--catalog-namespace {options.namespace!r} is not a lowercase Backstage namespace.",
                "Use 1-63 lowercase letters, digits and single '-' (for example payments).",
            )
        )
    if not LIFECYCLE.match(options.lifecycle or ""):
        errors.append(
            _error(
                f"--lifecycle {options.lifecycle!r} is not a valid lifecycle value.",
                "Pass the exact lifecycle, for example production, experimental or deprecated.",
            )
        )
    checks = [
        ("--default-owner-ref", options.default_owner, OWNER_KINDS),
        ("--kafka-cluster-ref", options.kafka_cluster, ("resource",)),
        ("--gateway-cluster-ref", options.gateway_cluster, ("resource",)),
        ("--domain-ref", options.domain, ("domain",)),
    ]
    for option, value, kinds in checks:
        if option == "--default-owner-ref" or value is not None:
            problem = ref_problem(value, kinds)
            if problem:
                errors.append(
                    _error(f"{option} {value!r} {problem}.", f"Pass a full ref such as {kinds[0]}:default/name.")
                )
    return errors


def load_owner_map(path: str | None) -> tuple[dict[str, str] | None, list[Diagnostic]]:
    """The strict version-1 owner map: ``{"version": 1, "owners": {"<label>": "<group|user ref>"}}``."""
    if path is None:
        return None, []
    suggestion = 'Use {"version": 1, "owners": {"<streamt owner label>": "group:<namespace>/<name>"}}.'
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        return None, [_error(f"Could not read --owner-map '{path}': {exc.strerror or type(exc).__name__}.", suggestion)]
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return None, [_error(f"--owner-map '{path}' is not JSON: {exc}.", suggestion)]
    if not isinstance(document, dict) or set(document) != {"version", "owners"}:
        keys = sorted(document) if isinstance(document, dict) else type(document).__name__
        return None, [
            _error(f"--owner-map must have exactly the keys 'owners' and 'version' (got {keys}).", suggestion)
        ]
    version = document["version"]
    if type(version) is not int or version != 1:
        return None, [_error(f"--owner-map version {version!r} is not supported.", "Only version 1 is supported.")]
    owners = document["owners"]
    if not isinstance(owners, dict):
        return None, [_error("--owner-map 'owners' must be an object.", suggestion)]
    errors = []
    for label, ref in sorted(owners.items()):
        problem = ref_problem(ref, OWNER_KINDS)
        if not label.strip():
            errors.append(_error("--owner-map has a blank owner label.", suggestion))
        elif problem:
            errors.append(_error(f"--owner-map entry {label!r}: the ref {problem}.", suggestion))
    return (None, errors) if errors else (dict(owners), [])


def _ref(kind: str, namespace: str, name: str) -> str:
    return f"{kind.lower()}:{namespace}/{name}"


def build_export(project: Any, compiled: Any, options: Options) -> Export:
    errors = option_problems(options)
    owner_map, map_errors = load_owner_map(options.owner_map)
    errors += map_errors
    if errors:
        return Export((), (), tuple(errors))
    ns = options.namespace
    system_ref = _ref("System", ns, options.catalog_id)
    common = {f"{ANNOTATION}/project": project.name, f"{ANNOTATION}/environment": project.env}

    def owner_of(declaration: Any) -> str:
        label = getattr(declaration, "owner", None)
        if not label or owner_map is None:
            return options.default_owner
        if label not in owner_map:
            errors.append(
                _error(
                    f"Owner label {label!r} of '{declaration.name}' is not in --owner-map.",
                    "Map every declared owner label, or omit --owner-map to use --default-owner-ref.",
                )
            )
            return options.default_owner
        return owner_map[label]

    def declaration(name: str) -> Any:
        return project.model(name) or project.source(name)

    def metadata(name: str, decl: Any, annotations: dict[str, str]) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": name, "namespace": ns, "annotations": {**common, **annotations}}
        description = getattr(decl, "description", None)
        if description and description.strip():
            meta["description"] = description.strip()
        return meta

    system_spec: dict[str, Any] = {"owner": options.default_owner, "type": "streaming-pipeline"}
    if options.domain:
        system_spec["domain"] = options.domain
    system_meta: dict[str, Any] = {"name": options.catalog_id, "namespace": ns, "title": project.name}
    system_meta["annotations"] = {**common, f"{ANNOTATION}/project-version": str(project.info.version)}
    description = getattr(project.info, "description", None)
    if description and description.strip():
        system_meta["description"] = description.strip()
    entities: list[dict[str, Any]] = [_entity("System", system_meta, system_spec)]

    # Resources: Kafka topics and Gateway virtual topics, keyed by the declaration that produces them.
    resources: dict[str, dict[str, Any]] = {}
    processes = []
    for artifact in compiled.artifacts:
        if artifact.kind == KIND_TOPIC:
            if options.kafka_cluster is None:
                errors.append(
                    _error(
                        f"Kafka topic '{artifact.identity}' needs the Kafka cluster Resource.",
                        "Pass --kafka-cluster-ref resource:<namespace>/<cluster>.",
                    )
                )
                continue
            decl = declaration(artifact.name)
            annotations = {
                f"{ANNOTATION}/declaration": artifact.name,
                f"{ANNOTATION}/ownership": artifact.ownership,
                f"{ANNOTATION}/topic": artifact.identity,
            }
            spec: dict[str, Any] = {"type": KAFKA_TOPIC, "owner": owner_of(decl), "system": system_ref}
            spec["dependsOn"] = [options.kafka_cluster]
            resources.setdefault(
                artifact.name, _entity("Resource", metadata(sanitize(artifact.identity), decl, annotations), spec)
            )
        elif artifact.kind == KIND_GATEWAY_RULE:
            if options.gateway_cluster is None:
                errors.append(
                    _error(
                        f"Gateway virtual topic '{artifact.identity}' needs the Gateway cluster Resource.",
                        "Pass --gateway-cluster-ref resource:<namespace>/<gateway>.",
                    )
                )
                continue
            decl = declaration(artifact.name)
            virtual = str(artifact.spec.get("virtualTopic") or artifact.identity)
            annotations = {
                f"{ANNOTATION}/declaration": artifact.name,
                f"{ANNOTATION}/ownership": artifact.ownership,
                f"{ANNOTATION}/virtual-topic": virtual,
            }
            spec = {"type": VIRTUAL_TOPIC, "owner": owner_of(decl), "system": system_ref}
            spec["dependsOn"] = [options.gateway_cluster]
            resources[artifact.name] = _entity("Resource", metadata(sanitize(virtual), decl, annotations), spec)
        if artifact.kind in COMPONENT_TYPES:
            processes.append(artifact)
    if errors:
        return Export((), (), tuple(errors))

    warnings: list[Diagnostic] = []
    for artifact in processes:
        model = project.model(artifact.name)
        name = sanitize(artifact.name)
        component_ref = _ref("Component", ns, name)
        own = resources.get(artifact.name)
        inputs = set()
        for dep in model.dependencies if model is not None else ():
            upstream = resources.get(dep.name)
            if upstream is not None and upstream is not own:
                inputs.add(_ref("Resource", ns, upstream["metadata"]["name"]))
        if artifact.kind == KIND_GATEWAY_RULE and own is not None:
            # the virtual topic sits on its physical topic, which the rule reads
            own["spec"]["dependsOn"] = sorted({*own["spec"]["dependsOn"], *inputs})
        if own is not None:
            own["spec"]["dependsOn"] = sorted({*own["spec"]["dependsOn"], component_ref})
        if artifact.kind == KIND_CONNECTOR:
            warnings.append(
                Diagnostic(
                    Codes.W113_BACKSTAGE_SINK_OUTPUT_OMITTED,
                    f"The destination of sink '{artifact.name}' is omitted from the Backstage catalog.",
                    "streamt does not invent the sink's destination; catalog it where it is owned.",
                    details={"component": name},
                )
            )
        annotations = {
            f"{ANNOTATION}/declaration": artifact.name,
            f"{ANNOTATION}/ownership": artifact.ownership,
            f"{ANNOTATION}/process": artifact.kind,
        }
        spec = {
            "type": COMPONENT_TYPES[artifact.kind],
            "lifecycle": options.lifecycle,
            "owner": owner_of(model),
            "system": system_ref,
        }
        if inputs:
            spec["dependsOn"] = sorted(inputs)
        entities.append(_entity("Component", metadata(name, model, annotations), spec))
    entities += resources.values()
    if errors:
        return Export((), (), tuple(errors))

    for exposure in sorted(project.exposures, key=lambda e: e.name):
        warnings.append(
            Diagnostic(
                Codes.W114_BACKSTAGE_EXPOSURE_OMITTED,
                f"Exposure '{exposure.name}' is omitted from the Backstage catalog.",
                "Exposures have no Backstage mapping in this release; catalog the application itself.",
                details={"exposure": exposure.name},
            )
        )
    entities.sort(key=lambda e: (KIND_ORDER[e["kind"]], e["metadata"]["name"]))
    errors += check_entities(entities, {r for r in (options.kafka_cluster, options.gateway_cluster) if r})
    return Export(tuple(entities), tuple(warnings), tuple(errors))


def _entity(kind: str, metadata: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, "spec": spec}


_SPEC_FIELDS = {
    "System": ({"owner"}, {"owner", "domain", "type"}),
    "Component": ({"type", "lifecycle", "owner"}, {"type", "lifecycle", "owner", "system", "dependsOn"}),
    "Resource": ({"type", "owner"}, {"type", "owner", "system", "dependsOn"}),
}
_META_FIELDS = {"name", "namespace", "title", "description", "annotations"}


def check_entities(entities: list[dict[str, Any]], external: set[str]) -> list[Diagnostic]:
    """Our own closed structural check of the emitted entities, before anything is printed or written."""
    problems = []
    seen: Counter[tuple[str, str]] = Counter()
    refs = {_ref(e.get("kind", ""), e.get("metadata", {}).get("namespace", ""), e.get("metadata", {}).get("name", ""))
            for e in entities}  # fmt: skip
    for entity in entities:
        kind = entity.get("kind")
        meta = entity.get("metadata", {})
        where = f"{kind} {meta.get('name')!r}"
        if set(entity) != {"apiVersion", "kind", "metadata", "spec"} or entity["apiVersion"] != API_VERSION:
            problems.append(f"{where}: not a {API_VERSION} entity envelope")
            continue
        if kind not in _SPEC_FIELDS:
            problems.append(f"{where}: kind not exported")
            continue
        if not set(meta) <= _META_FIELDS or not valid_name(str(meta.get("name", ""))):
            problems.append(f"{where}: invalid metadata or name")
        if not valid_namespace(str(meta.get("namespace", ""))):
            problems.append(f"{where}: invalid namespace")
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in meta.get("annotations", {}).items()):
            problems.append(f"{where}: annotations must be strings")
        required, allowed = _SPEC_FIELDS[kind]
        spec = entity["spec"]
        if not required <= set(spec) <= allowed:
            problems.append(f"{where}: spec fields {sorted(spec)} are not {sorted(required)} within {sorted(allowed)}")
        for key, value in spec.items():
            values = value if key == "dependsOn" else [value]
            if not values or not all(isinstance(v, str) and v for v in values):
                problems.append(f"{where}: spec.{key} must be non-empty strings")
        own = _ref(kind, str(meta.get("namespace")), str(meta.get("name")))
        for dep in spec.get("dependsOn", []):
            if dep == own or (dep not in refs and dep not in external):
                problems.append(f"{where}: spec.dependsOn {dep!r} is neither an emitted entity nor a cluster ref")
        seen[(kind, meta.get("name", ""))] += 1
    for (kind, name), count in sorted(seen.items()):
        if count > 1:
            problems.append(f"{count} {kind} entities are named '{name}' after sanitizing to Backstage's name rules")
    return [_error(p, "Rename the colliding declarations or topics, or report this mapping problem.") for p in problems]
