"""``validate`` findings of the Kafka plugin: what Kafka would refuse once records flow."""

from __future__ import annotations

from typing import Any

from streamt.sdk import Codes, Diagnostic

# Models whose SQL streamt runs, so streamt's own job writes every record of the topic.
_WRITTEN_BY_STREAMT = ("topic", "flink")


def compaction_problems(project: Any) -> list[Diagnostic]:
    """``E436`` for a compacted output topic whose records have no key: a compacted topic refuses them."""
    defaults = project.defaults.topic.config if project.defaults.topic else {}
    found = []
    for model in project.models:
        if not model.sql or model.materialized not in _WRITTEN_BY_STREAMT or model.key or model.primary_key:
            continue
        policy = str({**defaults, **model.topic.config}.get("cleanup.policy") or "")
        if "compact" not in [part.strip() for part in policy.split(",")]:
            continue
        found.append(
            Diagnostic(
                Codes.E436_DECLARATION_NOT_APPLICABLE,
                f"Model '{model.name}' writes topic '{model.topic_name}' with cleanup.policy {policy} but declares "
                "no key: Kafka refuses records without a key on a compacted topic",
                "Declare key: <column> (or primary_key) on the model, or use cleanup.policy: delete.",
                project.locations.get(("model", model.name)),
            )
        )
    return found
