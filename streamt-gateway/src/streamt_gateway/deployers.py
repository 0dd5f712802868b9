"""The Gateway rule deployer: create and update through the admin API v2 upserts, and rollback.

One rule per call. A rule is several writes, in order: ``PUT /alias-topic``, one ``PUT
/interceptor`` per desired rule-owned interceptor, then (update only) ``DELETE
/interceptor/{name}`` of rule-owned interceptors the plan saw live that are no longer desired.
Outcomes are exact:

* every write answered (PUT 200 with ``upsertResult`` Created/Updated/NotChanged, compared
  ignoring case and ``_``; DELETE 204, or 404 = already gone) → done;
* the *first* write refused (a 4xx) or never sent → failed: nothing changed;
* anything after the first write was sent (a refusal, a 5xx, no answer, an unexpected body) →
  unknown, never success: the aggregate may be partial, so recovery must look.

A rule with a mask method Gateway cannot express is refused before anything is sent (the
planner already blocks it). Rollback deletes only a rule this run created: its owned
interceptors, then the alias.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import attrs
from streamt.sdk import (
    CREATE,
    FAILED,
    KIND_GATEWAY_RULE,
    OK,
    UNKNOWN,
    UPDATE,
    Action,
    Artifact,
    Outcome,
    StreamtError,
    write_outcome,
)

from streamt_gateway.client import GatewayClient, MaybeSent
from streamt_gateway.live import client_for, desired_interceptors, owned_names, owner_comment, unsupported_masks

API_VERSION = "gateway/v2"
UPSERT_RESULTS = ("created", "updated", "notchanged")


def interceptor_path(name: str) -> str:
    return f"/interceptor/{quote(name, safe='')}"


def alias_resource(spec: dict[str, Any], vcluster: str) -> dict[str, Any]:
    return {
        "kind": "AliasTopic",
        "apiVersion": API_VERSION,
        "metadata": {"name": spec["virtualTopic"], "vCluster": vcluster},
        "spec": {"physicalName": spec["physicalTopic"]},
    }


def interceptor_resource(name: str, body: dict[str, Any], vcluster: str, owner: str | None = None) -> dict[str, Any]:
    return {
        "kind": "Interceptor",
        "apiVersion": API_VERSION,
        "metadata": {"name": name, "scope": {"vCluster": vcluster}},
        "spec": {"comment": owner_comment(owner), **body},
    }


def _upserted(status: int, payload: Any) -> bool:
    if status != 200 or not isinstance(payload, dict) or not isinstance(payload.get("resource"), dict):
        return False
    result = str(payload.get("upsertResult", "")).lower().replace("_", "")
    return result in UPSERT_RESULTS


@attrs.define
class GatewayRuleDeployer:
    runtime: Any
    kinds = (KIND_GATEWAY_RULE,)
    max_batch = 1
    marks_owner = True  # apply gets owner=<project>/<env>, written into each interceptor's comment

    def apply(
        self, action: str, pairs: Sequence[tuple[Action, Artifact]], owner: str | None = None
    ) -> dict[str, Outcome]:
        return {planned.identity: self._one(action, planned, artifact, owner) for planned, artifact in pairs}

    def _one(self, verb: str, action: Action, artifact: Artifact, owner: str | None) -> Outcome:
        if verb not in (CREATE, UPDATE):
            return Outcome(FAILED, f"Unsupported{verb.title()}")
        if unsupported_masks(artifact.spec):
            return Outcome(FAILED, "GatewayUnsupportedMask")
        try:
            client = client_for(self.runtime)
        except StreamtError as exc:
            return Outcome(FAILED, exc.diagnostics[0].code.code)
        observed = (action.evidence.get("observation") or {}).get("spec") or {}
        if observed.get("vCluster", client.vcluster) != client.vcluster:
            return Outcome(FAILED, "VirtualClusterChanged")
        stale = sorted(set((observed.get("aggregate") or {}).get("interceptors") or {}) - set(self._wanted(artifact)))
        landed = False  # whether an earlier write of this rule was answered, or may have been stored
        for method, path, body in self._writes(client, artifact, stale if verb == UPDATE else [], owner):
            try:
                status, payload = client.request(method, path, body)
            except StreamtError as exc:  # never sent, or the credentials were refused
                return Outcome(UNKNOWN if landed else FAILED, exc.diagnostics[0].code.code)
            except MaybeSent as exc:
                return Outcome(UNKNOWN, str(exc))
            answered = _upserted(status, payload) if method == "PUT" else status in (204, 404)
            if not answered:
                return write_outcome(status, changed_before=landed)
            landed = True
        return OK

    @staticmethod
    def _wanted(artifact: Artifact) -> dict[str, dict[str, Any]]:
        return desired_interceptors(artifact.spec)

    def _writes(
        self, client: GatewayClient, artifact: Artifact, stale: list[str], owner: str | None = None
    ) -> list[tuple[str, str, Any]]:
        """``(method, path, body)`` in order: the alias, the desired interceptors, stale owned interceptors."""
        writes: list[tuple[str, str, Any]] = [("PUT", "/alias-topic", alias_resource(artifact.spec, client.vcluster))]
        writes += [
            ("PUT", "/interceptor", interceptor_resource(name, body, client.vcluster, owner))
            for name, body in self._wanted(artifact).items()
        ]
        writes += [("DELETE", interceptor_path(name), {"vCluster": client.vcluster}) for name in stale]
        return writes

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Delete a rule this run created (owned interceptors, then the alias); ``False`` unless confirmed."""
        if action.action != CREATE:
            return False
        try:
            client = client_for(self.runtime)
            for name in owned_names(artifact.spec["virtualTopic"]):
                status, _ = client.request("DELETE", interceptor_path(name), {"vCluster": client.vcluster})
                if status not in (204, 404):
                    return False
            body = {"name": artifact.spec["virtualTopic"], "vCluster": client.vcluster}
            status, _ = client.request("DELETE", "/alias-topic", body)
            return status in (204, 404)
        except (StreamtError, MaybeSent):
            return False
