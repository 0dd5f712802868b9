"""Online observation and planning of Kafka Streams runners (``kafka_streams_job``) on Docker.

A runner is one container on the Docker Engine that ``DOCKER_HOST`` names (else the default local
socket). streamt finds its containers only by exact ownership labels (``labels()``): managed-by,
project, environment, application id and the artifact checksum the container was created from.

Observer: one ``GET /containers/json?all=1`` filtered by the project's labels for all runners of a
plan. The observation spec is ``{containers: [{id, state, checksum}]}`` (sorted by id; the health
check's answer changes by the second, so it is left to ``status``, never bound into a plan). An
engine that does not answer fails the plan with ``E406`` (it is never "absent"). Before any
mutation, a managed runner that would be created needs its image on the engine (else ``E208``,
naming ``runtime build``) and a Kafka security setting the runner supports.

Planner (the checksum label is what the container runs):

* absent -> ``create``;
* one running container with this checksum (label and ownership record) -> ``noop``;
* another checksum whose verified running definition differs in predicates only -> ``update`` +
  ``kafka_streams_reviewed_replacement`` blocker (only a format-6 ``apply --plan`` passes it,
  ``replacement``);
* any other checksum -> ``update`` + ``kafka_streams_update`` blocker (E417, never forceable);
* a container that is not running -> ``update`` + ``kafka_streams_not_running`` blocker;
* two or more containers -> ``update`` + ``kafka_streams_duplicate`` blocker;
* present without an ownership record -> core's ownership requirement (``E410``), never adopted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    CREATE,
    NOOP,
    PRESENT,
    UPDATE,
    Action,
    Advice,
    Artifact,
    Codes,
    Observation,
    SafetyBlocker,
    StreamtError,
)

from streamt_kstreams import engine
from streamt_kstreams.definition import running_definition
from streamt_kstreams.replacement import REVIEWED_REASON, UPDATE_REASON, binding

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


class KafkaStreamsPlanner:
    kinds = (KIND,)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        if observation.status == ABSENT:
            return [Action.for_artifact(CREATE, artifact, f"new runner {artifact.spec['container_name']}", observation)]
        if observation.status != PRESENT:
            raise ValueError(f"cannot plan runner {artifact.identity} from a {observation.status} observation")
        rows = (observation.spec or {}).get("containers") or []
        if len(rows) > 1:
            return _blocked(
                artifact,
                observation,
                "kafka_streams_duplicate",
                f"{len(rows)} containers carry runner '{artifact.identity}''s labels; streamt cannot tell which one "
                "it manages.",
            )
        row = rows[0]
        if row["state"] != "running":
            return _blocked(
                artifact,
                observation,
                "kafka_streams_not_running",
                f"Runner '{artifact.identity}' ({row['id'][:12]}) is {row['state']}; streamt does not restart or "
                "replace it. Inspect it (docker logs), then remove it yourself to let apply create it again.",
            )
        recorded = getattr(record, "artifact_checksum", None)
        if row["checksum"] == artifact.checksum and recorded in (None, artifact.checksum):
            # No record only reaches here from `status` and recovery (plan makes it an ownership requirement).
            return [Action.for_artifact(NOOP, artifact, "running", observation)]
        changes = {"artifact_checksum": {"from": row["checksum"], "to": artifact.checksum}}
        bound = binding(artifact, row, (observation.spec or {}).get("definition") or {}, record)
        if isinstance(bound, str):
            return _blocked(
                artifact,
                observation,
                UPDATE_REASON,
                f"Runner '{artifact.identity}' runs another definition and {bound}; streamt does not change it.",
                changes=changes,
                replacement_ineligible=f"not a predicate-only change: {bound}",
            )
        return _blocked(
            artifact,
            observation,
            REVIEWED_REASON,
            f"Runner '{artifact.identity}' changes its predicates only: a reviewed replacement. Save it with "
            "`streamt plan --out FILE` (format 6) and run it with `streamt apply --plan FILE`.",
            changes=changes,
            replacement=bound,
            suggestion="save it as a format-6 plan with `streamt plan --out FILE`, review it, then run "
            "`streamt apply --plan FILE` (the reviewed replacement)",
        )

    @staticmethod
    def runtime_identity(artifact: Artifact) -> dict[str, str | None]:
        """The runner as it runs: its application id (also its consumer group), start offset and output."""
        spec = artifact.spec
        return {
            "name": spec.get("application_id"),
            "group": spec.get("application_id"),
            "start": (spec.get("runtime") or {}).get("initial_offset"),
            "writes": spec.get("output_topic"),
        }

    def advise(self, before: Artifact, after: Artifact) -> Advice:
        """What ``plan`` does when the runner created from ``before`` runs and ``after`` replaces it.

        The decision is ``plan``'s own: ``after`` planned against one running container created
        from ``before`` (a verified definition, generation 1, its ownership record), as after a
        successful apply. Only a predicate-only change is a reviewed replacement; anything else is
        blocked and never forceable.
        """
        row = {"id": "running", "state": "running", "checksum": before.checksum}
        definition = {
            "verified": True,
            "spec": before.spec,
            "volumes": [before.spec.get("state_volume")],
            "image": (before.spec.get("runtime") or {}).get("image"),
            "generation": 1,
        }
        observation = Observation(PRESENT, {"containers": [row], "definition": definition}, assumed=True)
        record = _AppliedRecord(before.checksum)
        planned = self.plan(after, observation, record)
        blocker = next((p for p in planned if isinstance(p, SafetyBlocker)), None)
        if blocker is None:  # noop: the runner is unchanged
            return Advice(
                kind=after.kind,
                identity=after.identity,
                workflow=None,
                description="the runner's definition is unchanged: nothing is replaced",
                summary="no runner change",
            )
        if blocker.reason == REVIEWED_REASON:
            return Advice(
                kind=after.kind,
                identity=after.identity,
                workflow="kafka_streams_replacement",
                description="reviewed Kafka Streams runner replacement: the same application id, volume and "
                "offsets; a new container generation",
                summary="predicate-only change: a reviewed replacement (a format-6 plan)",
                state_compatible=True,
                commands=("streamt plan --out PLAN.json", "streamt apply --plan PLAN.json"),
            )
        return Advice(
            kind=after.kind,
            identity=after.identity,
            workflow="kafka_streams_replacement_blocked",
            description="plan refuses this runner change (E417, never forceable): only predicates may change",
            summary=blocker.message,
            blocked=True,
            reason=blocker.reason,
            state_compatible=False,
        )


class _AppliedRecord:
    """The ownership record a successful create of a runner leaves (what ``plan`` reads of it)."""

    def __init__(self, checksum: str) -> None:
        self.artifact_checksum = checksum
        self.attributes: dict[str, Any] = {"generation": 1}


def _blocked(
    artifact: Artifact,
    observation: Observation,
    reason: str,
    message: str,
    suggestion: str | None = None,
    **evidence: Any,
) -> list[Any]:
    return [
        Action.for_artifact(UPDATE, artifact, reason, observation, **evidence),
        SafetyBlocker(reason, artifact.kind, artifact.identity, message, suggestion),
    ]
