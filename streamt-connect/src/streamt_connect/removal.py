"""Reviewed removal of one exact Kafka Connect connector (``lifecycle.connector_removals``).

Core refuses it on local state (``E420``) before this module is asked anything. Planning makes one
percent-encoded ``GET /connectors/<name>`` and decides against the prior ``connector`` ownership
record, whose ``config_fingerprint`` the deployer recorded when it last wrote that artifact:

* record and live connector with that exact fingerprint → one ``delete`` needing a reviewed plan and
  ``--force`` (unless ``safety.allow_destructive``), bound to the connector name, the endpoint
  digest, the prior artifact checksum and the current and desired-absence fingerprints;
* no record and no connector → an assessed no-op; a record and no connector, a different live
  connector, or a connector without a record → a blocker.

Apply: the same GET must still show the reviewed fingerprint, the preimage is journaled durably,
then exactly one ``DELETE`` (never retried) and a bounded number of GETs that must answer 404. Once
the DELETE was sent, anything else is ``unknown``, which core reports as
``E428_CONNECTOR_REMOVAL_DRIFT`` with recovery required. The fingerprint hashes the configuration
with secret-named values left out; no configuration value is ever recorded.
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
    KIND_CONNECTOR,
    KIND_CONNECTOR_REMOVAL,
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

from streamt_connect.client import ConnectClient, MaybeSent, connector_path
from streamt_connect.live import client_for, config_fingerprint

ABSENCE_CHECKS, ABSENCE_DELAY_SECONDS = 10, 0.5
DRIFT = "connector_removal_drift"
UNOWNED = "connector_removal_ownership_required"


def endpoint_digest(client: ConnectClient) -> str:
    return sha256_checksum(canonical_json({"cluster": client.cluster, "rest_url": client.url.rstrip("/")}))


def absence_fingerprint(name: str) -> str:
    return sha256_checksum(canonical_json({"connector": name, "present": False}))


def read(client: ConnectClient, name: str) -> Observation:
    """One ``GET /connectors/<name>``: absent (404) or present with the config's fingerprint."""
    try:
        status, payload = client.request("GET", connector_path(name))
    except MaybeSent:
        raise client.unreachable() from None
    base = {"endpoint": endpoint_digest(client)}
    if status == 404:
        return Observation(ABSENT, base)
    if status != 200 or not isinstance(payload, dict) or not isinstance(payload.get("config"), dict):
        raise client.unexpected("read the connector", status)
    if payload.get("name") != name:
        raise client.unexpected("read the connector (another name answered)", status)
    return Observation(PRESENT, {**base, "fingerprint": config_fingerprint(payload["config"])})


@attrs.define
class ConnectorRemovalObserver:
    runtime: Any
    requests: int = 0
    kinds = (KIND_CONNECTOR_REMOVAL,)

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        observed = {}
        for artifact in artifacts:
            self.requests += 1
            client = client_for(self.runtime, artifact.spec["cluster"])
            observed[artifact.identity] = read(client, artifact.spec["name"])
        return observed


class ConnectorRemovalPlanner:
    kinds = (KIND_CONNECTOR_REMOVAL,)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        name = artifact.spec["name"]
        if observation.status not in (ABSENT, PRESENT):
            raise ValueError(f"cannot plan the removal of {name} from a {observation.status} observation")
        if record is None:
            if observation.status == ABSENT:
                return [Action.for_artifact(NOOP, artifact, TOMBSTONE_FULFILLED, observation)]
            return [_blocked(artifact, UNOWNED, "exists live but streamt has no ownership record for it")]
        recorded = (record.attributes or {}).get("config_fingerprint")
        if record.kind != KIND_CONNECTOR or record.identity != name or not recorded:
            return [_blocked(artifact, DRIFT, "has no ownership record streamt can prove a delete against")]
        if observation.status == ABSENT:
            return [_blocked(artifact, DRIFT, "is recorded as owned but absent live")]
        spec = observation.spec or {}
        if spec.get("fingerprint") != recorded:
            return [_blocked(artifact, DRIFT, "differs live from what streamt last deployed")]
        binding = {
            "connector": name,
            "endpoint": spec["endpoint"],
            "prior_artifact_checksum": record.artifact_checksum,
            "current_fingerprint": spec["fingerprint"],
            "desired_absence_fingerprint": absence_fingerprint(name),
        }
        return [
            Action.for_artifact(
                DELETE,
                artifact,
                f"delete connector {name}",
                observation,
                requires=["reviewed_plan", "force"],
                removal=binding,
            )
        ]

    def classify_recovery(
        self,
        resolution: str,
        intent: dict[str, Any],
        outcomes: list[str],
        evidence: list[dict[str, Any]],
        observation: Observation,
        artifact: Artifact,
    ) -> str | None:
        """Absent is the delete done (candidate); still live with the journaled preimage is the prior state."""
        if observation.status == ABSENT:
            return None if resolution == "rolled_back" else CANDIDATE
        preimages = [e.get("preimage_fingerprint") for e in evidence if e.get("preimage_fingerprint")]
        if observation.status == PRESENT and preimages and (observation.spec or {}).get("fingerprint") == preimages[-1]:
            return PRIOR
        return None


def _blocked(artifact: Artifact, reason: str, why: str) -> SafetyBlocker:
    return SafetyBlocker(
        reason, artifact.kind, artifact.identity, f"Connector '{artifact.spec['name']}' {why}; nothing is deleted."
    )


@attrs.define
class ConnectorRemovalDeployer:
    runtime: Any
    kinds = (KIND_CONNECTOR_REMOVAL,)
    max_batch = 1
    writes_evidence = True  # the preimage is journaled before the DELETE

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]], journal: Any = None) -> dict[str, Outcome]:
        return {planned.identity: self._one(action, planned, artifact, journal) for planned, artifact in pairs}

    def _one(self, verb: str, action: Action, artifact: Artifact, journal: Any) -> Outcome:
        if verb != DELETE:
            return Outcome(FAILED, f"Unsupported{verb.title()}")
        name = artifact.spec["name"]
        try:
            client = client_for(self.runtime, artifact.spec["cluster"])
            before = read(client, name)  # the equality GET
        except StreamtError as exc:
            return Outcome(FAILED, exc.diagnostics[0].code.code)
        reviewed = (action.evidence.get("removal") or {}).get("current_fingerprint")
        if before.status != PRESENT or (before.spec or {}).get("fingerprint") != reviewed:
            return Outcome(FAILED, "PreimageChanged")  # nothing was sent
        if journal is not None:
            journal(action.identity, {"preimage_fingerprint": reviewed})
        try:
            status, payload = client.request("DELETE", connector_path(name))
        except StreamtError as exc:  # refused before anything was sent
            return Outcome(FAILED, exc.diagnostics[0].code.code)
        except MaybeSent as exc:
            return Outcome(UNKNOWN, str(exc))
        if status != 204 or payload is not None:
            return Outcome(UNKNOWN, f"HTTP{status}")
        return _confirm_absent(client, name)

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        return False  # a delete is never undone automatically


def _confirm_absent(client: ConnectClient, name: str) -> Outcome:
    for attempt in range(ABSENCE_CHECKS):
        try:
            if read(client, name).status == ABSENT:
                return OK
        except StreamtError:
            pass
        if attempt + 1 < ABSENCE_CHECKS:
            time.sleep(ABSENCE_DELAY_SECONDS)
    return Outcome(UNKNOWN, "AbsenceNotProved")
