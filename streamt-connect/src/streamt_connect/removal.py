"""Reviewed removal of one exact Kafka Connect connector (``lifecycle.connector_removals``).

The planner and deployer parametrise ``streamt.sdk.RemovalPlanner``/``RemovalDeployer``, which
hold the decisions every removal shares; this module says what proves a connector delete.

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

from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    FAILED,
    KIND_CONNECTOR,
    KIND_CONNECTOR_REMOVAL,
    PRESENT,
    UNKNOWN,
    Action,
    Artifact,
    Codes,
    Observation,
    Outcome,
    RemovalDeployer,
    RemovalPlanner,
    StreamtError,
    canonical_json,
    sha256_checksum,
)

from streamt_connect.client import ConnectClient, MaybeSent, connector_path
from streamt_connect.live import client_for, config_fingerprint


def endpoint_digest(client: ConnectClient) -> str:
    return sha256_checksum(canonical_json({"cluster": client.cluster, "rest_url": client.url.rstrip("/")}))


def absence_fingerprint(name: str) -> str:
    return sha256_checksum(canonical_json({"connector": name, "present": False}))


def read(client: ConnectClient, name: str) -> Observation:
    """One ``GET /connectors/<name>``: absent (404) or present with the config's fingerprint."""
    try:
        status, payload = client.get(connector_path(name))
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


class ConnectorRemovalPlanner(RemovalPlanner):
    kinds = (KIND_CONNECTOR_REMOVAL,)
    noun = "Connector"

    def record_problem(self, artifact: Artifact, record: Any) -> str | None:
        recorded = (record.attributes or {}).get("config_fingerprint")
        if record.kind != KIND_CONNECTOR or record.identity != artifact.spec["name"] or not recorded:
            return "has no ownership record streamt can prove a delete against"
        return None

    def live_problem(self, artifact: Artifact, observation: Observation, record: Any) -> str | None:
        if (observation.spec or {}).get("fingerprint") != record.attributes["config_fingerprint"]:
            return "differs live from what streamt last deployed"
        return None

    def binding(self, artifact: Artifact, observation: Observation, record: Any) -> dict[str, Any]:
        spec = observation.spec or {}
        name = artifact.spec["name"]
        return {
            "connector": name,
            "endpoint": spec["endpoint"],
            "prior_artifact_checksum": record.artifact_checksum,
            "current_fingerprint": spec["fingerprint"],
            "desired_absence_fingerprint": absence_fingerprint(name),
        }

    def is_prior(self, artifact: Artifact, observation: Observation, evidence: list[dict[str, Any]]) -> bool:
        """Still live with the fingerprint journaled before the DELETE."""
        preimages = [e.get("preimage_fingerprint") for e in evidence if e.get("preimage_fingerprint")]
        return bool(preimages) and (observation.spec or {}).get("fingerprint") == preimages[-1]


@attrs.define
class ConnectorRemovalDeployer(RemovalDeployer):
    runtime: Any
    kinds = (KIND_CONNECTOR_REMOVAL,)
    writes_evidence = True  # the preimage is journaled before the DELETE
    absence_checks = 10
    failure_code = Codes.E428_CONNECTOR_REMOVAL_DRIFT

    def delete(self, action: Action, artifact: Artifact, journal: Any) -> Outcome:
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
        return self.confirm_absent(lambda: read(client, name).status == ABSENT, (StreamtError,))
