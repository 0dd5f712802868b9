"""The artifact kind this plugin compiles: one Gateway rule per ``virtual_topic`` model, named after the model."""

from __future__ import annotations

from streamt.sdk import KIND_GATEWAY_RULE, ArtifactKind

# The file is named after the model: a rule's identity is its alias topic (dsl.md section 18).
GATEWAY_RULE = ArtifactKind(
    name=KIND_GATEWAY_RULE,
    directory="gateway",
    manifest_key="gateway_rules",
    rank=60,
    title="Gateway Rules",
    named_by="name",
    materializations=("virtual_topic",),
)
KINDS = (GATEWAY_RULE,)
