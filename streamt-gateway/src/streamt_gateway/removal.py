"""Reviewed removal of one exact Gateway rule (``lifecycle.gateway_rule_removals``, dsl.md section 15).

The tombstone names the prior artifact (alias, physical topic, interceptors). Planning reads the
same two collections as for rules and decides against the prior ``gateway_rule`` ownership record:

* record and live aggregate both exactly the prior artifact → one ``delete`` that needs a reviewed
  plan and ``--force`` (unless ``safety.allow_destructive``), binding the rule, the endpoint digest,
  the prior artifact checksum and the current and desired-absence fingerprints;
* no record and nothing live → an assessed no-op (no mutation, no serial advance);
* a record but nothing live, a live rule that differs, or a live rule without a record → a blocker.

Apply deletes exactly the owned interceptors the plan saw and then the alias, after re-reading both
collections and finding them unchanged; absence is then confirmed a bounded number of times. Once
a DELETE was sent, anything but proof of absence is ``unknown``: recovery must look. The planner
and deployer parametrise ``streamt.sdk.RemovalPlanner``/``RemovalDeployer``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    FAILED,
    KIND_GATEWAY_RULE,
    KIND_GATEWAY_RULE_REMOVAL,
    PRESENT,
    UNKNOWN,
    Action,
    Artifact,
    Observation,
    Outcome,
    RemovalDeployer,
    RemovalPlanner,
    StreamtError,
    canonical_json,
    sha256_checksum,
)

from streamt_gateway.client import GatewayClient, MaybeSent
from streamt_gateway.deployers import interceptor_path
from streamt_gateway.live import client_for, desired_aggregate, endpoint_digest, fingerprint, live_aggregate


def prior_spec(artifact: Artifact) -> dict[str, Any]:
    return dict(artifact.spec["prior_artifact"])


def prior_checksum(artifact: Artifact) -> str:
    """The checksum of the ``gateway_rule`` artifact the tombstone copies (its spec is the prior artifact)."""
    return sha256_checksum(canonical_json(prior_spec(artifact)))


def absence_fingerprint(vcluster: str) -> str:
    return fingerprint({"alias": None, "interceptors": {}, "vCluster": vcluster})


def observe_all(client: GatewayClient, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
    """The two ordered collection GETs, then each tombstone's prior rule as it is live."""
    aliases = client.read("/alias-topic", "list alias topics")
    interceptors = client.read("/interceptor", "list interceptors")
    observed: dict[str, Observation] = {}
    for artifact in artifacts:
        live = live_aggregate(prior_spec(artifact), client.vcluster, aliases, interceptors)
        base = {"vCluster": client.vcluster, "endpoint": endpoint_digest(client)}
        if live is None:
            observed[artifact.identity] = Observation(ABSENT, base)
        else:
            spec = {**base, "aggregate": live, "fingerprint": fingerprint(live)}
            observed[artifact.identity] = Observation(PRESENT, spec)
    return observed


@attrs.define
class GatewayRuleRemovalObserver:
    runtime: Any
    requests: int = 0
    kinds = (KIND_GATEWAY_RULE_REMOVAL,)

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        if not artifacts:
            return {}
        self.requests += 2
        return observe_all(client_for(self.runtime), artifacts)


def _exact(artifact: Artifact, observation: Observation) -> bool:
    spec = observation.spec or {}
    desired = desired_aggregate(prior_spec(artifact), spec.get("vCluster", ""))
    return observation.status == PRESENT and spec.get("fingerprint") == fingerprint(desired)


class GatewayRuleRemovalPlanner(RemovalPlanner):
    kinds = (KIND_GATEWAY_RULE_REMOVAL,)
    noun = "Gateway rule"

    def record_problem(self, artifact: Artifact, record: Any) -> str | None:
        alias = prior_spec(artifact)["virtualTopic"]
        if (record.kind, record.identity, record.artifact_checksum) != (
            KIND_GATEWAY_RULE,
            alias,
            prior_checksum(artifact),
        ):
            return "is not the rule the ownership record holds"
        return None

    def live_problem(self, artifact: Artifact, observation: Observation, record: Any) -> str | None:
        return None if _exact(artifact, observation) else "differs live from the prior artifact of the tombstone"

    def binding(self, artifact: Artifact, observation: Observation, record: Any) -> dict[str, Any]:
        spec = observation.spec or {}
        return {
            "rule": artifact.identity,
            "alias": prior_spec(artifact)["virtualTopic"],
            "endpoint": spec["endpoint"],
            "prior_artifact_checksum": record.artifact_checksum,
            "current_fingerprint": spec["fingerprint"],
            "desired_absence_fingerprint": absence_fingerprint(spec["vCluster"]),
        }

    def summary(self, artifact: Artifact, observation: Observation, binding: dict[str, Any]) -> str:
        owned = len((observation.spec or {})["aggregate"]["interceptors"])
        return f"delete alias {binding['alias']} and {owned} owned interceptor(s)"

    def is_prior(self, artifact: Artifact, observation: Observation, evidence: list[dict[str, Any]]) -> bool:
        """Exactly the prior rule still live."""
        return _exact(artifact, observation)


@attrs.define
class GatewayRuleRemovalDeployer(RemovalDeployer):
    runtime: Any
    kinds = (KIND_GATEWAY_RULE_REMOVAL,)

    def delete(self, action: Action, artifact: Artifact, journal: Any) -> Outcome:
        try:
            client = client_for(self.runtime)
            before = observe_all(client, [artifact])[artifact.identity]
        except (StreamtError, MaybeSent) as exc:
            return Outcome(FAILED, type(exc).__name__)
        seen = (action.evidence.get("observation") or {}).get("spec") or {}
        if before.status != PRESENT or (before.spec or {}).get("fingerprint") != seen.get("fingerprint"):
            return Outcome(FAILED, "PreimageChanged")  # nothing was sent
        owned = sorted((before.spec or {})["aggregate"]["interceptors"])
        writes = [("DELETE", interceptor_path(name), {"vCluster": client.vcluster}) for name in owned]
        alias = {"name": prior_spec(artifact)["virtualTopic"], "vCluster": client.vcluster}
        writes.append(("DELETE", "/alias-topic", alias))
        sent = False
        for method, path, body in writes:
            try:
                status, _ = client.request(method, path, body)
            except StreamtError as exc:
                return Outcome(UNKNOWN if sent else FAILED, exc.diagnostics[0].code.code)
            except MaybeSent as exc:
                return Outcome(UNKNOWN, str(exc))
            if status != 204:
                refused = 400 <= status < 500 and status not in (404, 408)
                return Outcome(FAILED if refused and not sent else UNKNOWN, f"HTTP{status}")
            sent = True
        return self.confirm_absent(
            lambda: observe_all(client, [artifact])[artifact.identity].status == ABSENT, (StreamtError, MaybeSent)
        )
