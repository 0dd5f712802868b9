"""Live connectors: observation, planning and runtime status against the Kafka Connect REST API.

One ``GET /connectors?expand=info`` per Connect cluster reads every connector's configuration, and
one ``GET /connectors?expand=status`` (``status`` only) their runtime state, whatever the number
of connectors.

Secrets never leave memory. A declared value holding a ``${VAR}`` placeholder is resolved from
the process environment only to be compared with (and, at apply, sent to) the worker; a declared
key whose name looks secret is compared the same way. For both, the observation records only
``equal``/``differs``/``absent``, never a value. Undeclared live keys are listed by name only. The
observation therefore holds what a reviewed plan may bind, and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    CREATE,
    KIND_CONNECTOR,
    NOOP,
    PRESENT,
    UNSET,
    UPDATE,
    Action,
    Artifact,
    Codes,
    Observation,
    SafetyBlocker,
    StreamtError,
    canonical_json,
    has_placeholder,
    sha256_checksum,
    shown,
)

from streamt_connect.client import ConnectClient, MaybeSent, connector_path
from streamt_connect.config import connect_runtime
from streamt_connect.naming import owner_of

SECRET_WORDS = ("password", "secret", "token", "credential", "api.key", "apikey", "private", "passphrase")
EQUAL, DIFFERS, MISSING_LIVE = "equal", "differs", "absent"
# Connector runtime states that count as healthy in `status --health`.
HEALTHY_STATES = ("RUNNING",)
SECRET_VALUE = "<secret>"  # stands in for secret-named values in config fingerprints


def config_fingerprint(config: dict[str, Any]) -> str:
    """A digest of a live or deployed config; values of secret-named keys are not part of it."""
    body = {
        str(k): SECRET_VALUE if any(w in str(k).lower() for w in SECRET_WORDS) else str(v) for k, v in config.items()
    }
    return sha256_checksum(canonical_json(body))


def is_secret(key: str, value: str) -> bool:
    return has_placeholder(value) or any(word in key.lower() for word in SECRET_WORDS)


def resolved_config(artifact: Artifact, environ: Mapping[str, str]) -> dict[str, str]:
    """The config to send: placeholders resolved from ``environ`` (``Runtime.environment()``: ``.env``
    then the process), in memory only (else E502)."""
    from streamt.sdk import missing_error, substitute

    missing: set[str] = set()
    config = {key: substitute(str(value), environ, missing) for key, value in artifact.spec["config"].items()}
    if missing:
        raise missing_error(missing)
    return config


def client_for(runtime: Any, cluster: str | None) -> ConnectClient:
    connect = connect_runtime(runtime)
    if connect is None or not connect.clusters:
        raise StreamtError(
            Codes.E205_CONNECT_REQUIRED,
            "Sink connectors need runtime.connect with at least one cluster.",
            "Add runtime.connect.clusters.<name>.rest_url for this environment.",
        )
    alias = cluster or connect.default_cluster
    settings = connect.clusters.get(alias) if alias else None
    if settings is None:
        raise StreamtError(
            Codes.E208_MISSING_CONFIG,
            f"Connect cluster '{alias}' is not configured in runtime.connect.clusters.",
            "Set runtime.connect.default or the model's advanced.connect_cluster to a configured cluster.",
        )
    verify: Any = settings.ssl_ca_location or True
    return ConnectClient(settings.rest_url, str(alias), settings.username, settings.password, verify)


def by_cluster(runtime: Any, artifacts: Sequence[Artifact]) -> list[tuple[ConnectClient, list[Artifact]]]:
    groups: dict[str, list[Artifact]] = {}
    clients: dict[str, ConnectClient] = {}
    for artifact in artifacts:
        client = client_for(runtime, artifact.spec.get("cluster"))
        clients[client.cluster] = client
        groups.setdefault(client.cluster, []).append(artifact)
    return [(clients[alias], groups[alias]) for alias in sorted(groups)]


def live_view(artifact: Artifact, live: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """What may be recorded about a live config: declared public values, secret comparisons, extra key names."""
    desired = {k: str(v) for k, v in artifact.spec["config"].items()}
    resolved = resolved_config(artifact, environ)
    config: dict[str, Any] = {}
    secrets: dict[str, str] = {}
    for key, value in sorted(desired.items()):
        have = live.get(key)
        if is_secret(key, value):
            secrets[key] = MISSING_LIVE if have is None else EQUAL if str(have) == resolved[key] else DIFFERS
        else:
            config[key] = None if have is None else str(have)
    return {"config": config, "secret_keys": secrets, "undeclared_keys": sorted(set(live) - set(desired))}


def adoption_facts(
    artifact: Artifact, client: ConnectClient, payload: dict[str, Any], environ: Mapping[str, str]
) -> dict[str, Any]:
    """What ``adopt`` shows of a live connector: identity facts and key names, never a config value."""
    view = live_view(artifact, payload["config"], environ)
    desired = {k: str(v) for k, v in artifact.spec["config"].items()}
    return {
        "cluster": client.cluster,
        "connector.class": payload["config"].get("connector.class"),
        "type": payload.get("type"),
        "tasks": len(payload.get("tasks") or []),
        "differing_keys": sorted(k for k, v in view["config"].items() if v != desired[k]),
        "secret_keys": view["secret_keys"],
        "undeclared_keys": view["undeclared_keys"],
    }


@attrs.define
class ConnectorObserver:
    runtime: Any
    requests: int = 0
    kinds = (KIND_CONNECTOR,)
    # adopt: the facts of the last exact read of each connector, shown by adoption_review
    reviewed: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    fingerprints: dict[str, str] = attrs.field(factory=dict)

    def adoption_observe(self, artifact: Artifact) -> Observation:
        """One percent-encoded ``GET /connectors/<name>``, the only Connect call adoption makes."""
        client = client_for(self.runtime, artifact.spec.get("cluster"))
        resolved_config(artifact, self.runtime.environment())  # a missing variable fails before any request (E502)
        self.requests += 1
        try:
            status, payload = client.get(connector_path(artifact.spec["name"]))
        except MaybeSent:
            raise client.unreachable() from None
        if status == 404:
            self.reviewed.pop(artifact.identity, None)
            return Observation(ABSENT)
        if status != 200 or not isinstance(payload, dict) or not isinstance(payload.get("config"), dict):
            raise client.unexpected("read the connector", status)
        if payload.get("name") != artifact.spec["name"]:
            raise client.unexpected("read the connector (another name answered)", status)
        self.reviewed[artifact.identity] = adoption_facts(artifact, client, payload, self.runtime.environment())
        self.fingerprints[artifact.identity] = config_fingerprint(payload["config"])
        return Observation(PRESENT, live_view(artifact, payload["config"], self.runtime.environment()))

    def adoption_review(self, artifact: Artifact) -> dict[str, Any]:
        return dict(self.reviewed[artifact.identity])

    def adoption_attributes(self, artifact: Artifact) -> dict[str, Any]:
        """Recorded with the claim, so that a reviewed removal can later prove it is this connector."""
        return {"config_fingerprint": self.fingerprints[artifact.identity]}

    @staticmethod
    def adoption_pending(items: list[Any]) -> list[dict[str, Any]]:
        """Pending differences by key name only: a connector's values may be configuration it should not show."""
        pending: list[dict[str, Any]] = []
        for item in items:
            if not isinstance(item, Action):
                pending.append({"blocker": item.reason, "message": item.message})
            elif item.action != NOOP:
                keys = ", ".join(sorted(item.evidence.get("changes") or {}))
                pending.append({"action": item.action, "summary": f"{item.action}: {keys}"})
        return pending

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        observed: dict[str, Observation] = {}
        for client, group in by_cluster(self.runtime, artifacts):
            listing = self._list(client, "info")
            for artifact in group:
                resolved_config(artifact, self.runtime.environment())  # a missing variable fails the plan (E502)
                observed[artifact.identity] = self._observe(client, listing, artifact)
        return observed

    def _observe(self, client: ConnectClient, listing: dict[str, Any], artifact: Artifact) -> Observation:
        """The connector under its name; absent, the one under the legacy (model) name, as ``legacy``."""
        name = artifact.spec["name"]
        if name not in listing:
            legacy = artifact.name if artifact.name != name and artifact.name in listing else None
            if legacy is None:
                return Observation(ABSENT)
            config = listed_config(listing, legacy)
            if config is None:
                raise client.unexpected("list connectors (malformed entry)", 200)
            return Observation(ABSENT, {"legacy": {"name": legacy, "fingerprint": config_fingerprint(config)}})
        config = listed_config(listing, name)
        if config is None:
            raise client.unexpected("list connectors (malformed entry)", 200)
        view = live_view(artifact, config, self.runtime.environment())
        owner = owner_of(config)
        if artifact.name != name and artifact.name in listing:
            view["legacy"] = {"name": artifact.name}
        return Observation(PRESENT, {**view, "owner": owner} if owner is not None else view)

    def runtime_status(self, artifacts: Sequence[Artifact]) -> dict[str, dict[str, Any]]:
        """``state`` (RUNNING, FAILED, PAUSED, UNASSIGNED, ...) and task states; no traces (they hold messages)."""
        found: dict[str, dict[str, Any]] = {}
        for client, group in by_cluster(self.runtime, artifacts):
            listing = self._list(client, "status")
            for artifact in group:
                status = (listing.get(artifact.spec["name"]) or {}).get("status") or {}
                connector = status.get("connector") or {}
                tasks = [str(t.get("state")) for t in status.get("tasks") or [] if isinstance(t, dict)]
                state = str(connector.get("state") or "UNKNOWN")
                if state == "RUNNING" and any(t != "RUNNING" for t in tasks):
                    state = "DEGRADED"  # a failed task does not fail its connector
                found[artifact.identity] = {
                    "state": state,
                    "tasks": tasks,
                    "healthy": state in HEALTHY_STATES,
                    "cluster": client.cluster,
                }
        return found

    def _list(self, client: ConnectClient, expand: str) -> dict[str, Any]:
        self.requests += 1
        payload = client.read(f"/connectors?expand={expand}", "list connectors")
        if not isinstance(payload, dict):
            raise client.unexpected("list connectors (not an object)", 200)
        return payload


def listed_config(listing: dict[str, Any], name: str) -> dict[str, Any] | None:
    """The config of ``name`` in a ``GET /connectors?expand=info`` answer; ``None`` if absent or malformed."""
    entry = listing.get(name)
    info = entry.get("info") if isinstance(entry, dict) else None
    config = info.get("config") if isinstance(info, dict) else None
    return config if isinstance(config, dict) else None


def changed_keys(artifact: Artifact, live: dict[str, Any]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    desired = {k: str(v) for k, v in artifact.spec["config"].items()}
    for key, have in sorted((live.get("config") or {}).items()):
        if have != desired.get(key):
            changes[f"config.{key}"] = {"from": have, "to": desired.get(key)}
    for key, verdict in sorted((live.get("secret_keys") or {}).items()):
        if verdict != EQUAL:
            changes[f"config.{key}"] = {"secret": True, "live": verdict}
    return changes


RENAME_INCOMPLETE = "connector_rename_incomplete"


def _renaming(observation: Observation, record: Any) -> str | None:
    """The legacy name to rename from: only when this project's record names that connector."""
    legacy = (observation.spec or {}).get("legacy")
    if legacy is None or record is None or getattr(record, "identity", None) != legacy["name"]:
        return None
    return str(legacy["name"])


class ConnectorPlanner:
    """Absent → create; declared keys equal → noop; otherwise an update (the full config is PUT).

    A connector this project owns under its legacy (model) name is renamed to its scoped name by a
    reviewed ``update`` (``rename_from``); both names live at once is a blocker, never a guess.
    """

    kinds = (KIND_CONNECTOR,)

    @staticmethod
    def runtime_identity(artifact: Artifact) -> dict[str, str | None]:
        """The connector as it runs: its name, the sink consumer group Connect names after it
        (``connect-<name>``) and where a new group starts (Connect's default ``earliest`` unless the
        config overrides ``auto.offset.reset``)."""
        config = artifact.spec.get("config") or {}
        topics = config.get("topics")
        return {
            "name": artifact.identity,
            "group": f"connect-{artifact.identity}",
            "start": config.get("consumer.override.auto.offset.reset") or "earliest",
            "writes": f"the sink of topics {topics}" if topics else None,
        }

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        config = artifact.spec["config"]
        legacy = _renaming(observation, record)
        if legacy is None and "legacy" in (observation.spec or {}):
            # Not this project's connector: kept out of the evidence, so a reviewed plan never binds it.
            spec = {k: v for k, v in (observation.spec or {}).items() if k != "legacy"}
            observation = Observation(observation.status, spec or None, observation.assumed)
        if legacy is not None and observation.status == ABSENT:
            summary = f"rename {legacy} → {artifact.spec['name']} (consumer offsets carried over)"
            fingerprint = observation.spec["legacy"]["fingerprint"]  # type: ignore[index]
            return [
                Action.for_artifact(
                    UPDATE,
                    artifact,
                    summary,
                    observation,
                    rename_from=legacy,
                    legacy_fingerprint=fingerprint,
                    requires=["reviewed_plan"],
                )
            ]
        if legacy is not None:
            message = (
                f"Connector '{legacy}' (owned, legacy name) and '{artifact.spec['name']}' both exist; streamt "
                "cannot tell which one runs the sink."
            )
            fix = "delete the one that should not run (DELETE /connectors/<name>), then plan again"
            return [SafetyBlocker(RENAME_INCOMPLETE, artifact.kind, artifact.identity, message, fix)]
        if observation.status == ABSENT:
            summary = f"{config.get('connector.class', '?').rsplit('.', 1)[-1]}, topics: {config.get('topics', '')}"
            return [Action.for_artifact(CREATE, artifact, summary, observation)]
        if observation.status != PRESENT:
            raise ValueError(f"cannot plan connector {artifact.identity} from a {observation.status} observation")
        live = observation.spec or {}
        changes = changed_keys(artifact, live)
        if not changes:
            return [Action.for_artifact(NOOP, artifact, "no changes", observation)]
        parts = [
            f"{key}: (secret changed)"
            if change.get("secret")
            else f"{key}: {shown(change['from'], UNSET)} → {shown(change['to'], UNSET)}"
            for key, change in changes.items()
        ]
        dropped = live.get("undeclared_keys") or []
        if dropped:
            parts.append("removes undeclared " + ", ".join(dropped))
        return [Action.for_artifact(UPDATE, artifact, ", ".join(parts), observation, changes=changes)]
