"""``lifecycle.connector_removals``: the connector tombstone this plugin owns (dsl.md section 15).

One entry names the connector to delete (``name``), the model that deployed it
(``logical_owner``, whose ``connector`` ownership record the delete is proved against) and its
Connect ``cluster``, which must be ``runtime.connect.default``. It compiles into one
``connector_removal`` artifact; ``streamt_connect.removal`` plans and deletes it. Connector
removal needs PostgreSQL v2 deployment state (``E420`` on local state, before Connect is read).
"""

from __future__ import annotations

from typing import Any

import attrs
from streamt.sdk import KIND_CONNECTOR_REMOVAL, Artifact, Codes, Diagnostic, RemovalKind

KEY = "connector_removals"


@attrs.frozen(kw_only=True)
class ConnectorRemoval:
    logical_owner: str
    name: str
    cluster: str


def tombstone(entry: ConnectorRemoval) -> Artifact:
    spec = {"cluster": entry.cluster, "logical_owner": entry.logical_owner, "name": entry.name}
    return Artifact(KIND_CONNECTOR_REMOVAL, entry.logical_owner, entry.name, spec)


def check(entries: tuple[ConnectorRemoval, ...], project: Any) -> list[Diagnostic]:
    """A connector tombstone binds to the default Connect cluster only."""
    # The default of runtime.connect (this plugin's section) is the only cluster a tombstone may bind
    # to (None, so refused, when it is not written or not readable).
    default = getattr(project.runtime.section("connect"), "default_cluster", None)
    return [
        Diagnostic(
            Codes.E501_PARSE_ERROR,
            f"Connector tombstone '{entry.name}' names cluster '{entry.cluster}', "
            f"not the default Connect cluster '{default}'",
            "Connector removal binds to runtime.connect.default only.",
        )
        for entry in entries
        if entry.cluster != default
    ]


REMOVAL = RemovalKind(
    key=KEY,
    kind=KIND_CONNECTOR_REMOVAL,
    model=ConnectorRemoval,
    keys=dict.fromkeys(("logical_owner", "name", "cluster")),
    extra="connect",
    tombstone=tombstone,
    check=check,
    local_state_refusal=(
        "Connector removal needs PostgreSQL v2 deployment state; local state cannot prove the exclusive "
        "authority a delete requires.",
        "Configure deployment_state.backend: postgres (migrated to v2) for this environment.",
    ),
)
