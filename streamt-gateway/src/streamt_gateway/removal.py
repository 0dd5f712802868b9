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
a DELETE was sent, anything but proof of absence is ``unknown``: recovery must look.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    CANDIDATE,
    DELETE,
    FAILED,
    KIND_GATEWAY_RULE,
    KIND_GATEWAY_RULE_REMOVAL,
    NOOP,
    OK,
    PRESENT,
    PRIOR,
    TOMBSTONE_FULFILLED,
    UNKNOWN,
    Action,
    Artifact,
    Observation,
    Outcome,
    SafetyBlocker,
    StreamtError,
    canonical_json,
    sha256_checksum,
)

from streamt_gateway.client import GatewayClient, MaybeSent
from streamt_gateway.deployers import interceptor_path
from streamt_gateway.live import client_for, desired_aggregate, endpoint_digest, fingerprint, live_aggregate

ABSENCE_CHECKS, ABSENCE_DELAY_SECONDS = 5, 0.5
DRIFT = "gateway_rule_removal_drift"
UNOWNED = "gateway_rule_removal_ownership_required"


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


class GatewayRuleRemovalPlanner:
    kinds = (KIND_GATEWAY_RULE_REMOVAL,)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        name = artifact.identity
        if observation.status not in (ABSENT, PRESENT):
            raise ValueError(f"cannot plan the removal of {name} from a {observation.status} observation")
        if record is None:
            if observation.status == ABSENT:
                return [Action.for_artifact(NOOP, artifact, TOMBSTONE_FULFILLED, observation)]
            return [self._blocked(artifact, UNOWNED, "exists live but streamt has no ownership record for it")]
        alias = prior_spec(artifact)["virtualTopic"]
        if (record.kind, record.identity, record.artifact_checksum) != (
            KIND_GATEWAY_RULE,
            alias,
            prior_checksum(artifact),
        ):
            return [self._blocked(artifact, DRIFT, "is not the rule the ownership record holds")]
        if observation.status == ABSENT:
            return [self._blocked(artifact, DRIFT, "is recorded as owned but absent live")]
        if not _exact(artifact, observation):
            return [self._blocked(artifact, DRIFT, "differs live from the prior artifact of the tombstone")]
        spec = observation.spec or {}
        binding = {
            "rule": name,
            "alias": alias,
            "endpoint": spec["endpoint"],
            "prior_artifact_checksum": record.artifact_checksum,
            "current_fingerprint": spec["fingerprint"],
            "desired_absence_fingerprint": absence_fingerprint(spec["vCluster"]),
        }
        summary = f"delete alias {binding['alias']} and {len(spec['aggregate']['interceptors'])} owned interceptor(s)"
        return [
            Action.for_artifact(
                DELETE, artifact, summary, observation, requires=["reviewed_plan", "force"], removal=binding
            )
        ]

    @staticmethod
    def _blocked(artifact: Artifact, reason: str, why: str) -> SafetyBlocker:
        return SafetyBlocker(
            reason, artifact.kind, artifact.identity, f"Gateway rule '{artifact.identity}' {why}; nothing is deleted."
        )

    def classify_recovery(
        self,
        resolution: str,
        intent: dict[str, Any],
        outcomes: list[str],
        evidence: list[dict[str, Any]],
        observation: Observation,
        artifact: Artifact,
    ) -> str | None:
        """Deleted (absent) is the candidate; exactly the prior rule still live is the prior state."""
        if observation.status == ABSENT:
            return None if resolution == "rolled_back" else CANDIDATE
        if _exact(artifact, observation):
            return PRIOR
        return None


@attrs.define
class GatewayRuleRemovalDeployer:
    runtime: Any
    kinds = (KIND_GATEWAY_RULE_REMOVAL,)
    max_batch = 1

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        return {planned.identity: self._one(action, planned, artifact) for planned, artifact in pairs}

    def _one(self, verb: str, action: Action, artifact: Artifact) -> Outcome:
        if verb != DELETE:
            return Outcome(FAILED, f"Unsupported{verb.title()}")
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
        return self._confirm_absent(client, artifact)

    @staticmethod
    def _confirm_absent(client: GatewayClient, artifact: Artifact) -> Outcome:
        for attempt in range(ABSENCE_CHECKS):
            try:
                if observe_all(client, [artifact])[artifact.identity].status == ABSENT:
                    return OK
            except (StreamtError, MaybeSent):
                pass
            if attempt + 1 < ABSENCE_CHECKS:
                time.sleep(ABSENCE_DELAY_SECONDS)
        return Outcome(UNKNOWN, "AbsenceNotProved")

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        return False  # a delete is never undone automatically
