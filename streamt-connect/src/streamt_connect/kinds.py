"""The artifact kinds this plugin compiles: one connector per ``sink`` model, named after the model,
and one ``connector_removal`` per ``lifecycle.connector_removals`` tombstone (from no declaration)."""

from __future__ import annotations

from streamt.sdk import KIND_CONNECTOR, KIND_CONNECTOR_REMOVAL, ArtifactKind

CONNECTOR = ArtifactKind(
    name=KIND_CONNECTOR,
    directory="connect",
    manifest_key="connectors",
    rank=50,
    title="Connectors",
    named_by="name",
    materializations=("sink",),
)
CONNECTOR_REMOVAL = ArtifactKind(
    name=KIND_CONNECTOR_REMOVAL,
    directory="lifecycle/connector_removals",
    manifest_key="connector_removals",
    rank=80,
    title="Connector Removals",
)
KINDS = (CONNECTOR, CONNECTOR_REMOVAL)
