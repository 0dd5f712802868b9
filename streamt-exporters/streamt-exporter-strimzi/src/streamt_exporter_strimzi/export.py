"""``export strimzi``: the mapping, the checks and the canonical YAML, without any I/O.

Managed topics become documents; external topics are omitted with one W120
each; every other artifact kind is summarised in one bounded W121; an
adopted topic is an E509 error (its lifecycle belongs to ``streamt adopt``,
not to a GitOps controller). Documents are sorted by name and dumped with
sorted keys, so the same project always gives the same bytes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs
import yaml
from streamt.sdk import KIND_TOPIC, Codes, Diagnostic

from streamt_exporter_strimzi.checks import document_problems, option_problems
from streamt_exporter_strimzi.codes import STRIMZI_INVALID
from streamt_exporter_strimzi.mapping import kafka_topic


@attrs.frozen
class Export:
    documents: tuple[dict[str, Any], ...]
    warnings: tuple[Diagnostic, ...]
    errors: tuple[Diagnostic, ...]
    omitted_external: int
    omitted_artifacts: dict[str, int]

    @property
    def text(self) -> str:
        return canonical_yaml(self.documents)


def canonical_yaml(documents: tuple[dict[str, Any], ...]) -> str:
    return "".join(
        "---\n" + yaml.safe_dump(doc, sort_keys=True, default_flow_style=False, allow_unicode=True, width=4096)
        for doc in documents
    )


def _error(message: str, suggestion: str) -> Diagnostic:
    return Diagnostic(STRIMZI_INVALID, message, suggestion)


def build_export(compiled: Any, namespace: str, cluster: str) -> Export:
    errors = [_error(p, "Pass an exact, valid value.") for p in option_problems(namespace, cluster)]
    warnings: list[Diagnostic] = []
    documents: list[dict[str, Any]] = []
    others: Counter[str] = Counter()
    external = 0
    for artifact in compiled.artifacts:
        if artifact.kind != KIND_TOPIC:
            others[artifact.kind] += 1
        elif artifact.ownership == "external":
            external += 1
            warnings.append(
                Diagnostic(
                    Codes.W120_STRIMZI_EXTERNAL_TOPIC_OMITTED,
                    f"External topic '{artifact.identity}' ({artifact.name}) is omitted from the Strimzi export.",
                    "External topics belong to their owners; streamt never manages them.",
                    details={"topic": artifact.identity},
                )
            )
        elif artifact.ownership == "adopted":
            errors.append(
                _error(
                    f"Adopted topic '{artifact.identity}' ({artifact.name}) cannot be exported to Strimzi.",
                    "An adopted topic is managed through `streamt adopt`/`apply`; export only managed topics.",
                )
            )
        else:
            documents.append(kafka_topic(artifact, namespace, cluster))
    if others:
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(others.items()))
        warnings.append(
            Diagnostic(
                Codes.W121_STRIMZI_ARTIFACTS_OMITTED,
                f"{sum(others.values())} non-topic artifacts are omitted from the Strimzi export ({summary}).",
                "Strimzi KafkaTopic covers topics only; deploy the rest with `streamt apply`.",
                details={"omitted": dict(sorted(others.items()))},
            )
        )
    documents.sort(key=lambda d: d["metadata"]["name"])
    errors += [_error(p, "Report this mapping problem to streamt.") for d in documents for p in document_problems(d)]
    errors += _name_collisions(documents)
    return Export(tuple(documents), tuple(warnings), tuple(errors), external, dict(sorted(others.items())))


def _name_collisions(documents: list[dict[str, Any]]) -> list[Diagnostic]:
    names = Counter(d["metadata"]["name"] for d in documents)
    return [
        _error(f"Several topics map to the KafkaTopic name '{name}'.", "Rename one of the topics.")
        for name, count in sorted(names.items())
        if count > 1
    ]
