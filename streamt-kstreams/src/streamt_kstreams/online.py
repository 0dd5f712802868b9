"""Online observation of Kafka Streams runners (``kafka_streams_job``) on Docker.

A runner is one container on the Docker Engine that ``DOCKER_HOST`` names (else the default local
socket). streamt finds its containers only by exact ownership labels (``labels()``): managed-by,
project, environment, application id and the artifact checksum the container was created from.

Observer: one ``GET /containers/json?all=1`` filtered by the project's labels for all runners of a
plan. The observation spec is ``{containers: [{id, state, checksum}]}`` (sorted by id; the health
check's answer changes by the second, so it is left to ``status``, never bound into a plan). An
engine that does not answer fails the plan with ``E406`` (it is never "absent"). Before any
mutation, a managed runner that would be created needs its image on the engine (else ``E208``,
naming ``runtime build``) and a Kafka security setting the runner supports.

The planner of these observations is ``planner.KafkaStreamsPlanner``: it needs no engine, so an
offline plan does not import the Docker client.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    PRESENT,
    Artifact,
    Codes,
    Observation,
    StreamtError,
)

from streamt_kstreams import engine
from streamt_kstreams.definition import running_definition

KIND = "kafka_streams_job"
LABEL_MANAGED_BY = "io.streamt.managed-by"
LABEL_PROJECT = "io.streamt.project"
LABEL_ENVIRONMENT = "io.streamt.environment"
LABEL_APPLICATION = "io.streamt.application-id"
LABEL_CHECKSUM = "io.streamt.artifact-checksum"
MANAGED_BY = "streamt"
SUPPORTED_PROTOCOLS = ("PLAINTEXT", "SASL_PLAINTEXT")


def labels(artifact: Artifact) -> dict[str, str]:
    spec = artifact.spec
    return {
        LABEL_MANAGED_BY: MANAGED_BY,
        LABEL_PROJECT: str(spec["project"]),
        LABEL_ENVIRONMENT: str(spec["environment"]),
        LABEL_APPLICATION: str(spec["application_id"]),
        LABEL_CHECKSUM: artifact.checksum,
    }


def _filters(artifact: Artifact) -> list[str]:
    own = labels(artifact)
    return [f"{key}={own[key]}" for key in (LABEL_MANAGED_BY, LABEL_PROJECT, LABEL_ENVIRONMENT)]


def check_kafka_security(runtime: Any) -> None:
    kafka = runtime.kafka
    if kafka.security_protocol not in SUPPORTED_PROTOCOLS or (
        kafka.security_protocol == "SASL_PLAINTEXT" and (kafka.sasl_mechanism or "PLAIN") != "PLAIN"
    ):
        raise StreamtError(
            Codes.E208_MISSING_CONFIG,
            f"The Kafka Streams runner supports PLAINTEXT and SASL_PLAINTEXT with PLAIN, not "
            f"{kafka.security_protocol}/{kafka.sasl_mechanism}.",
            "Give the runner a PLAINTEXT or SASL/PLAIN listener (runtime.kafka.bootstrap_servers_internal).",
        )


def container_row(summary: dict[str, Any]) -> dict[str, Any]:
    """One container of a ``/containers/json`` listing, reduced to what planning compares."""
    status = str(summary.get("Status") or "")
    health = "healthy" if "(healthy)" in status else "unhealthy" if "(unhealthy)" in status else None
    if health is None and "health: starting" in status:
        health = "starting"
    return {
        "id": str(summary.get("Id")),
        "state": str(summary.get("State")),
        "health": health,
        "checksum": (summary.get("Labels") or {}).get(LABEL_CHECKSUM),
    }


def list_containers(client: Any, artifact: Artifact) -> list[dict[str, Any]]:
    try:
        summaries = client.api.containers(all=True, filters={"label": _filters(artifact)})
    except Exception as exc:
        raise engine.failure(exc) from None
    return summaries


def rows_of(summaries: list[dict[str, Any]], artifact: Artifact) -> list[dict[str, Any]]:
    app_id = artifact.spec["application_id"]
    mine = [s for s in summaries if (s.get("Labels") or {}).get(LABEL_APPLICATION) == app_id]
    return sorted((container_row(s) for s in mine), key=lambda r: r["id"])


def select(summaries: list[dict[str, Any]], artifact: Artifact, client: Any = None) -> Observation:
    rows = [{k: v for k, v in row.items() if k != "health"} for row in rows_of(summaries, artifact)]
    if not rows:
        return Observation(ABSENT)
    spec: dict[str, Any] = {"containers": rows}
    single = rows[0] if len(rows) == 1 else None
    if client is not None and single and single["state"] == "running" and single["checksum"] != artifact.checksum:
        # Another definition runs: what it is decides whether a reviewed replacement is possible.
        spec["definition"] = running_definition(client, rows[0]["id"], rows[0]["checksum"])
    return Observation(PRESENT, spec)


@attrs.define
class KafkaStreamsObserver:
    runtime: Any
    kinds = (KIND,)

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        if not artifacts:
            return {}
        client = engine.client()
        try:
            by_scope: dict[tuple[str, ...], list[Artifact]] = {}
            for artifact in artifacts:
                by_scope.setdefault(tuple(_filters(artifact)), []).append(artifact)
            observed: dict[str, Observation] = {}
            for group in by_scope.values():
                summaries = list_containers(client, group[0])
                for artifact in group:
                    observed[artifact.identity] = select(summaries, artifact, client)
            self._require_creatable(client, [a for a in artifacts if observed[a.identity].status == ABSENT])
            return observed
        finally:
            client.close()

    def _require_creatable(self, client: Any, absent: list[Artifact]) -> None:
        managed = [a for a in absent if a.ownership == "managed"]
        if managed:
            check_kafka_security(self.runtime)
        for image in sorted({str(a.spec["runtime"]["image"]) for a in managed}):
            if not engine.image_present(client, image):
                raise StreamtError(
                    Codes.E208_MISSING_CONFIG,
                    f"The runner image {image} is not on the Docker Engine; streamt never pulls.",
                    "Run `streamt runtime build` on this engine and put its data.image into "
                    "runtime.kafka_streams.image.",
                )

    def runtime_status(self, artifacts: Sequence[Artifact]) -> dict[str, dict[str, Any]]:
        """For ``status``: RUNNING / REBALANCING / ERROR / STARTING / EXITED per present runner."""
        out: dict[str, dict[str, Any]] = {}
        client = engine.client()
        try:
            listed: dict[tuple[str, ...], list[dict[str, Any]]] = {}
            for artifact in artifacts:
                scope = tuple(_filters(artifact))
                if scope not in listed:
                    listed[scope] = list_containers(client, artifact)
                rows = rows_of(listed[scope], artifact)
                if len(rows) == 1:
                    state = runner_state(client, rows[0])
                    out[artifact.identity] = {
                        "state": state,
                        "healthy": state == "RUNNING",
                        "container_id": rows[0]["id"],
                        # A stopped runner shows EXITED, not the DRIFT its not-running blocker reads as.
                        "terminal": rows[0]["state"] != "running",
                    }
        finally:
            client.close()
        return out


def runner_state(client: Any, row: dict[str, Any]) -> str:
    if row["state"] != "running":
        return "EXITED" if row["state"] in ("exited", "dead", "created") else row["state"].upper()
    if row["health"] == "healthy":
        return "RUNNING"
    return last_reported_state(client, row["id"]) or "STARTING"


def last_reported_state(client: Any, container_id: str) -> str | None:
    """The runner's last ``streamt-runner state=X`` line (its own report, not a guess)."""
    try:
        text = client.api.logs(container_id, stdout=True, stderr=False, tail=200).decode("utf-8", "replace")
    except Exception:
        return None
    states = [line.split("=", 1)[1].strip() for line in text.splitlines() if line.startswith("streamt-runner state=")]
    return states[-1] if states else None
