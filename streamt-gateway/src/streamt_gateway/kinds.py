"""The artifact kinds this plugin compiles: one Gateway rule per ``virtual_topic`` model, named after the
model, and one ``gateway_rule_removal`` per ``lifecycle.gateway_rule_removals`` tombstone (from no declaration)."""

from __future__ import annotations

from streamt.sdk import KIND_GATEWAY_RULE, KIND_GATEWAY_RULE_REMOVAL, ArtifactKind

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
GATEWAY_RULE_REMOVAL = ArtifactKind(
    name=KIND_GATEWAY_RULE_REMOVAL,
    directory="lifecycle/gateway_rule_removals",
    manifest_key="gateway_rule_removals",
    rank=90,
    title="Gateway Rule Removals",
)
KINDS = (GATEWAY_RULE, GATEWAY_RULE_REMOVAL)
