"""One read-only discovery: topics -> selection -> schema lookups -> declarations."""

from __future__ import annotations

from typing import Any

import attrs

from streamt import kinds
from streamt.discovery import declarations as decl
from streamt.discovery.model import FAILED, RESOLVED, SKIPPED_AFTER_OUTAGE, UNSUPPORTED_REASONS
from streamt.discovery.select import select_topics
from streamt.errors import Codes, Diagnostic, StreamtError
from streamt.kind_names import KIND_TOPIC
from streamt.plugins import Plugins, get_plugins
from streamt.progress import Progress, Silent, Step, phase
from streamt.sdk.protocols import DiscoverySource

LIMITS = (
    "Only the conventional {topic}-value subject is read; key subjects are not imported.",
    "Columns are inferred from top-level Avro/JSON Schema fields and are not runtime-verified.",
    "Protobuf subjects contribute only their subject/version/format reference.",
    "No records are sampled; application SQL/code is not reconstructed.",
    "Internal topics (names starting with '_') are skipped.",
)


@attrs.frozen
class Preview:
    """Everything an import would write and report, in stable topic order."""

    sources: tuple[dict[str, Any], ...]
    resources: tuple[dict[str, Any], ...]
    counts: dict[str, int]
    discovery: dict[str, Any]
    warnings: tuple[Diagnostic, ...]


def discoverer(runtime: Any, plugins: Plugins | None = None) -> DiscoverySource:
    """The discoverer of topics (``kinds`` holds ``topic``), under the one precedence rule of ``streamt.kinds``."""
    plugins = plugins or get_plugins()
    table = kinds.discoverers(plugins, runtime)
    table.require([KIND_TOPIC])
    found = table.get(KIND_TOPIC)
    if found is not None:
        return found
    entry = kinds.known(plugins, kinds.DISCOVERER).get(KIND_TOPIC)
    raise StreamtError(
        Codes.E903_PLUGIN_REQUIRED,
        "No installed plugin discovers Kafka topics.",
        f"Install the Kafka plugin: pip install 'streamt[{entry.extra}]'."
        if entry is not None and entry.extra
        else kinds.install_hint(KIND_TOPIC, plugins),
    )


def discover(
    runtime: Any,
    *,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    schemas: bool,
    declared_topics: set[str],
    taken_names: set[str],
    plugins: Any = None,
    progress: Progress | None = None,
) -> Preview:
    """What importing the cluster's topics would declare; ``progress`` hears the two network phases."""
    progress = progress or Silent()
    finder = discoverer(runtime, plugins)
    try:
        with phase(progress, Step("read", "kafka", "topic metadata")):
            topics = finder.list_topics()
    except StreamtError as exc:
        cause = exc.diagnostics[0]
        raise StreamtError(
            Codes.E701_IMPORT_DISCOVERY_FAILED,
            f"Kafka discovery failed before any declaration was written: {cause.message}",
            cause.suggestion,
            details={"cause": cause.code.code},
        ) from None
    selection = select_topics(topics, include, exclude, declared_topics)
    incomplete = sorted(t.name for t in selection.selected if not t.complete)
    if incomplete:
        raise StreamtError(
            Codes.E701_IMPORT_DISCOVERY_FAILED,
            f"Kafka returned incomplete metadata for {len(incomplete)} topic(s): {', '.join(incomplete[:10])}.",
            "Retry when the cluster is healthy, or exclude these topics with --exclude.",
            details={"incomplete_topics": incomplete},
        )
    names = decl.assign_names(list(selection.selected), taken_names)
    what = f"schemas of {len(selection.selected)} topic(s)" if schemas else f"{len(selection.selected)} topic(s)"
    with phase(progress, Step("read", "schema_registry" if schemas else "kafka", what)):
        enrichment = finder.enrich([t.name for t in selection.selected], schemas)
    sources, resources = [], []
    by_name = {t.name: t for t in topics}
    for topic in selection.selected:
        lookup = enrichment.lookups[topic.name]
        sources.append(decl.declaration(names[topic.name], topic.name, lookup))
        resources.append(decl.resource(topic, names[topic.name], lookup, "imported"))
    for name in selection.already_declared:
        resources.append(decl.resource(by_name[name], None, None, "already_declared"))
    resources.sort(key=lambda r: r["topic"])
    statuses = [lookup.status for lookup in enrichment.lookups.values()]
    counts = {
        "discovered": len(topics),
        "selected": len(selection.selected),
        "imported": len(sources),
        "already_declared": len(selection.already_declared),
        "internal_skipped": selection.internal_skipped,
        "filtered_out": selection.filtered_out,
        "schemas_resolved": statuses.count(RESOLVED),
        "schemas_failed": statuses.count(FAILED),
        "schemas_skipped_after_outage": statuses.count(SKIPPED_AFTER_OUTAGE),
    }
    discovery = {
        "access": "read_only",
        "enrichment": {
            "requested": schemas,
            "availability": enrichment.availability,
            "subject_strategy": "{topic}-value",
            "requests": enrichment.requests,
        },
        "internal_topics_skipped": selection.internal_skipped,
        "limits": list(LIMITS),
    }
    return Preview(tuple(sources), tuple(resources), counts, discovery, _warnings(enrichment, statuses))


def _warnings(enrichment: Any, statuses: list[str]) -> tuple[Diagnostic, ...]:
    found: list[Diagnostic] = []
    if enrichment.availability == "outage":
        skipped = statuses.count(SKIPPED_AFTER_OUTAGE)
        found.append(
            Diagnostic(
                Codes.W107_SCHEMA_ENRICHMENT_SKIPPED,
                f"The Schema Registry became unavailable; {skipped} remaining lookup(s) were skipped and "
                "those topics were imported from Kafka metadata only.",
                "Re-run the import for those topics once the registry is reachable (it skips declared topics).",
            )
        )
    unsupported = sum(1 for lookup in enrichment.lookups.values() if lookup.reason in UNSUPPORTED_REASONS)
    if unsupported:
        found.append(
            Diagnostic(
                Codes.W107_SCHEMA_ENRICHMENT_SKIPPED,
                f"{unsupported} subject(s) had a schema shape import cannot read; those topics have no schema block.",
                "Declare their schema and columns by hand.",
            )
        )
    return tuple(found)
