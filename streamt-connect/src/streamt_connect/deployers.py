"""The connector deployer: create (POST /connectors), update (PUT /connectors/{name}/config), rollback.

One connector per call (the REST API has no batch write). Outcomes are exact:

* 201 on create, 200/201 on update → done;
* a refusal (4xx other than 409) → failed: Connect validates before it writes;
* 409 (the worker group is rebalancing, or the connector exists) → the connector is read back:
  unchanged since the plan (absent for a create, the observed config for an update) proves the
  write did not happen, and it is retried a few times, else failed; anything else → unknown;
* no answer after the request may have left, or a 5xx → unknown, never success;
* an update planned as a rename from the legacy name (``rename_from``) → ``rename``.

After a confirmed write the deployer waits (bounded) until the worker's listing shows the written
config: the worker acknowledges before its config snapshot has caught up, and a plan issued right
after apply must not see the connector as absent or old.

Placeholders are resolved in memory just before the request; the resolved config is never kept.
Rollback deletes only a connector this run created.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    CREATE,
    DONE,
    FAILED,
    KIND_CONNECTOR,
    UNKNOWN,
    UPDATE,
    Action,
    Artifact,
    Outcome,
    StreamtError,
    write_outcome,
)

from streamt_connect.client import ConnectClient, MaybeSent, connector_path
from streamt_connect.live import client_for, config_fingerprint, listed_config, live_view, resolved_config
from streamt_connect.rename import rename


@attrs.define
class ConnectorDeployer:
    runtime: Any
    attempts: int = 5
    pause_seconds: float = 1.0
    visible_seconds: float = 15.0
    kinds = (KIND_CONNECTOR,)
    max_batch = 1

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        return {planned.identity: self._one(action, planned, artifact) for planned, artifact in pairs}

    def _one(self, verb: str, action: Action, artifact: Artifact) -> Outcome:
        if verb not in (CREATE, UPDATE):
            return Outcome(FAILED, f"Unsupported{verb.title()}")
        try:
            client = client_for(self.runtime, artifact.spec.get("cluster"))
            config = resolved_config(artifact, self.runtime.environment())
        except StreamtError as exc:
            return Outcome(FAILED, exc.diagnostics[0].code.code)
        name = artifact.spec["name"]
        legacy = action.evidence.get("rename_from") if verb == UPDATE else None
        if legacy:
            outcome = rename(client, str(legacy), name, config, str(action.evidence.get("legacy_fingerprint")))
            if outcome.status == DONE:
                self._await_listed(client, name, config)
            return outcome
        for attempt in range(self.attempts):
            try:
                if verb == CREATE:
                    status, _ = client.request("POST", "/connectors", {"name": name, "config": config})
                else:
                    status, _ = client.request("PUT", connector_path(name, "/config"), config)
            except StreamtError as exc:  # refused before anything was sent
                return Outcome(FAILED, exc.diagnostics[0].code.code)
            except MaybeSent as exc:
                return Outcome(UNKNOWN, str(exc))
            if status == 201 or (verb == UPDATE and status == 200):
                self._await_listed(client, name, config)
                # What a later reviewed removal must find live to prove the connector is this one.
                return Outcome(DONE, attributes={"config_fingerprint": config_fingerprint(config)})
            if status == 409:
                if not self._unchanged(client, verb, action, artifact):
                    return Outcome(UNKNOWN, "HTTP409")
                if attempt + 1 < self.attempts:
                    time.sleep(self.pause_seconds)
                continue
            return write_outcome(status)
        return Outcome(FAILED, "HTTP409")

    def _await_listed(self, client: ConnectClient, name: str, config: dict[str, str]) -> None:
        """Until ``GET /connectors?expand=info`` (what the observer reads) shows ``config``, within a bound.

        The write is already confirmed, so neither a lagging listing nor an error here changes the
        outcome; this only keeps the next plan from reading a stale snapshot.
        """
        deadline = time.monotonic() + self.visible_seconds
        while time.monotonic() < deadline:
            # One request per turn (not ``client.get``): this loop already asks again on any answer,
            # a rebalance's 409 included, within its own bound.
            try:
                status, listing = client.request("GET", "/connectors?expand=info")
            except (StreamtError, MaybeSent):
                status, listing = 0, None
            live = listed_config(listing, name) if status == 200 and isinstance(listing, dict) else None
            if live is not None and all(live.get(key) == value for key, value in config.items()):
                return
            time.sleep(0.2)

    def _unchanged(self, client: ConnectClient, verb: str, action: Action, artifact: Artifact) -> bool:
        """Whether the connector is provably as the plan saw it (so the refused write did nothing)."""
        try:
            status, payload = client.get(connector_path(artifact.spec["name"]))
        except (StreamtError, MaybeSent):
            return False
        observed = action.evidence.get("observation") or {}
        if verb == CREATE:
            return status == 404 and observed.get("status") == ABSENT
        if status != 200 or not isinstance(payload, dict) or not isinstance(payload.get("config"), dict):
            return False
        try:
            return live_view(artifact, payload["config"], self.runtime.environment()) == observed.get("spec")
        except StreamtError:
            return False

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Delete a connector this run created; ``False`` unless the worker confirms it."""
        if action.action != CREATE:
            return False
        try:
            client = client_for(self.runtime, artifact.spec.get("cluster"))
            for _ in range(self.attempts):
                status, _ = client.request("DELETE", connector_path(artifact.spec["name"]))
                if status in (200, 204):
                    return True
                if status != 409:
                    return False
                time.sleep(self.pause_seconds)
        except (StreamtError, MaybeSent):
            return False
        return False
