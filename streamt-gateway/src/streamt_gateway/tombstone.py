"""``lifecycle.gateway_rule_removals``: the Gateway rule tombstone this plugin owns (dsl.md section 15).

One entry names the model that deployed the rule (``logical_owner``, whose ``gateway_rule``
ownership record the delete is proved against) and copies the prior ``gateway_rule`` artifact
from the manifest as is (``prior_artifact``: ``name``, ``virtualTopic``, ``physicalTopic``,
``interceptors``). It compiles into one ``gateway_rule_removal`` artifact;
``streamt_gateway.removal`` plans and deletes it.
"""

from __future__ import annotations

from typing import Any

import attrs
from streamt.sdk import KIND_GATEWAY_RULE_REMOVAL, Artifact, RemovalKind

KEY = "gateway_rule_removals"


def _tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value or ())


@attrs.frozen(kw_only=True)
class PriorGatewayRule:
    name: str
    virtualTopic: str
    physicalTopic: str
    interceptors: tuple[dict[str, Any], ...] = attrs.field(converter=_tuple)


@attrs.frozen(kw_only=True)
class GatewayRuleRemoval:
    logical_owner: str
    prior_artifact: PriorGatewayRule


def tombstone(entry: GatewayRuleRemoval) -> Artifact:
    prior = entry.prior_artifact
    spec = {
        "logical_owner": entry.logical_owner,
        "prior_artifact": {
            "interceptors": [dict(i) for i in prior.interceptors],
            "name": prior.name,
            "physicalTopic": prior.physicalTopic,
            "virtualTopic": prior.virtualTopic,
        },
    }
    return Artifact(KIND_GATEWAY_RULE_REMOVAL, entry.logical_owner, prior.name, spec)


REMOVAL = RemovalKind(
    key=KEY,
    kind=KIND_GATEWAY_RULE_REMOVAL,
    model=GatewayRuleRemoval,
    keys={
        "logical_owner": None,
        "prior_artifact": dict.fromkeys(("name", "virtualTopic", "physicalTopic", "interceptors")),
    },
    extra="gateway",
    tombstone=tombstone,
)
