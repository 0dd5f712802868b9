"""The artifact kind this plugin compiles: one connector per ``sink`` model, named after the model."""

from __future__ import annotations

from streamt.sdk import KIND_CONNECTOR, ArtifactKind

CONNECTOR = ArtifactKind(
    name=KIND_CONNECTOR,
    directory="connect",
    manifest_key="connectors",
    rank=50,
    title="Connectors",
    named_by="name",
    materializations=("sink",),
)
KINDS = (CONNECTOR,)
