"""``validate --check-schemas``: declared external subjects against the registry, read-only.

Per declared subject: ``GET /subjects/<s>/versions/<pinned or latest>`` (subject, version, type,
schema text, references), then every reference at the version it pins, transitively (each
subject/version read once; a cycle or a missing reference is a finding). Avro is decoded with
fastavro with its referenced named types, JSON Schema must be a JSON object; Protobuf is checked
for subject, version, type and its reference graph only (its messages are not parsed, no columns
are inferred). Declared columns are compared with the registered top-level fields: a declared
column the schema does not have is ``W102``, a different type ``W301``. Nothing is ever registered
or changed; an unreachable registry is ``E406`` and refused credentials ``E404`` (secret-free).
"""

from __future__ import annotations

import json
from typing import Any

from streamt.sdk import Codes, Diagnostic

from streamt_kafka.registry_live import RegistryClient
from streamt_kafka.schema_columns import columns_of

MAX_REFERENCES = 200  # a reference graph larger than this is refused rather than walked


def check_subjects(client: RegistryClient, declared: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Any]]:
    """``(facts per subject, diagnostics)``; ``declared`` items: source, subject, format, version, columns."""
    facts, findings = [], []
    for item in declared:
        fact, problems = _check_one(client, item)
        facts.append(fact)
        findings += problems
    return facts, findings


def _check_one(client: RegistryClient, item: dict[str, Any]) -> tuple[dict[str, Any], list[Diagnostic]]:
    source, subject = item["source"], item["subject"]
    wanted = item.get("version") or "latest"
    fact: dict[str, Any] = {"source": source, "subject": subject, "requested_version": wanted}
    registered = client.version(subject, wanted)
    if registered is None:
        where = f"no version {wanted}" if wanted != "latest" else "no registered version"
        return fact, [
            _error(
                source,
                f"Subject '{subject}' has {where} in the registry.",
                "Check schema.subject/schema.version, or register the subject first.",
            )
        ]
    fmt = str(registered.get("schemaType") or "AVRO").upper()
    fact.update({"version": registered.get("version"), "id": registered.get("id"), "format": fmt})
    problems: list[Diagnostic] = []
    declared_fmt = (item.get("format") or fmt).upper()
    if declared_fmt != fmt:
        problems.append(
            _error(
                source,
                f"Subject '{subject}' is {fmt}, declared {declared_fmt}.",
                f"Declare schema.format: {fmt.lower()}.",
            )
        )
    graph, broken = _references(client, registered)
    fact["references"] = [f"{r['subject']}@{r['version']}" for r in graph]
    problems += [
        _error(source, message, "Register the referenced subject version, or fix the reference.") for message in broken
    ]
    if broken:
        return fact, problems
    if fmt == "PROTOBUF":
        fact["columns"] = None  # verified by subject/version/type and references only
        return fact, problems
    decoded = _decode(fmt, str(registered.get("schema") or ""), graph)
    if decoded is not None:
        return fact, [
            *problems,
            _error(
                source,
                f"Subject '{subject}' v{fact['version']}: {decoded}.",
                "Fix the registered schema; streamt never changes an external subject.",
            ),
        ]
    columns, _reason = columns_of(fmt, str(registered.get("schema")))
    fact["columns"] = [{"name": n, "type": t} for n, t in columns]
    problems += _compare(source, subject, dict(columns), item.get("columns") or [])
    return fact, problems


def _references(client: RegistryClient, root: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    """Every referenced subject version, dependencies first; and what could not be resolved."""
    ordered: list[dict[str, Any]] = []
    broken: list[str] = []
    seen: set[tuple[str, str]] = set()
    stack: list[tuple[dict[str, Any], bool]] = [(root, False)]
    path: list[tuple[str, str]] = []
    while stack:
        node, done = stack.pop()
        key = (str(node.get("subject")), str(node.get("version")))
        if done:
            path.pop()
            if node is not root:
                ordered.append(node)
            continue
        if key in path:
            broken.append(f"Reference cycle through '{key[0]}' v{key[1]}.")
            continue
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > MAX_REFERENCES:
            broken.append(f"More than {MAX_REFERENCES} referenced schemas; not walked further.")
            break
        path.append(key)
        stack.append((node, True))
        for ref in node.get("references") or []:
            target = client.version(str(ref.get("subject")), ref.get("version"))
            if target is None:
                broken.append(
                    f"Reference '{ref.get('name')}' → '{ref.get('subject')}' v{ref.get('version')} is missing."
                )
                continue
            stack.append(({**target, "name": ref.get("name")}, False))
    return ordered, broken


def _decode(fmt: str, text: str, references: list[dict[str, Any]]) -> str | None:
    """``None`` when the schema decodes (with its references), else why not."""
    try:
        document = json.loads(text)
    except ValueError:
        return "the registered schema is not JSON"
    if fmt == "JSON":
        return None if isinstance(document, dict) else "a JSON Schema must be an object"
    import fastavro
    from fastavro.schema import SchemaParseException, UnknownType

    named: dict[str, Any] = {}
    try:
        for ref in references:
            fastavro.parse_schema(json.loads(ref.get("schema") or "null"), named_schemas=named)
        fastavro.parse_schema(document, named_schemas=named)
    except (SchemaParseException, UnknownType, ValueError, TypeError, KeyError) as exc:
        return f"the Avro schema does not decode ({type(exc).__name__})"
    return None


def _compare(source: str, subject: str, registered: dict[str, str], declared: list[dict[str, Any]]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for column in declared:
        name, wanted = column["name"], column.get("type")
        if name not in registered:
            out.append(
                Diagnostic(
                    Codes.W102_MISSING_SOURCE_COLUMN,
                    f"Source '{source}': column '{name}' is not a field of subject '{subject}'.",
                    "Remove the column, or use the field name the schema registers.",
                    details={"source": source, "subject": subject, "column": name},
                )
            )
        elif wanted and _normal(wanted) != _normal(registered[name]):
            out.append(
                Diagnostic(
                    Codes.W301_COLUMN_TYPE_MISMATCH,
                    f"Source '{source}': column '{name}' is declared {wanted}, registered {registered[name]}.",
                    f"Declare type {registered[name]}.",
                    details={"source": source, "subject": subject, "column": name},
                )
            )
    return out


def _normal(flink_type: str) -> str:
    return " ".join(flink_type.upper().replace("VARCHAR", "STRING").replace("INTEGER", "INT").split())


def _error(source: str, message: str, suggestion: str) -> Diagnostic:
    return Diagnostic(
        Codes.E402_SCHEMA_INCOMPATIBLE, f"Source '{source}': {message}", suggestion, details={"source": source}
    )
