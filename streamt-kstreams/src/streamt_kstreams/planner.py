"""Planning a Kafka Streams runner (``kafka_streams_job``) from its observation; no engine needed.

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

from typing import Any

from streamt.sdk import (
    ABSENT,
    CREATE,
    KIND_KAFKA_STREAMS_JOB,
    NOOP,
    PRESENT,
    Action,
    Advice,
    AppliedRecord,
    Artifact,
    Observation,
    SafetyBlocker,
    blocked_update,
)

from streamt_kstreams.replacement import REVIEWED_REASON, UPDATE_REASON, binding


class KafkaStreamsPlanner:
    kinds = (KIND_KAFKA_STREAMS_JOB,)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        if observation.status == ABSENT:
            return [Action.for_artifact(CREATE, artifact, f"new runner {artifact.spec['container_name']}", observation)]
        if observation.status != PRESENT:
            raise ValueError(f"cannot plan runner {artifact.identity} from a {observation.status} observation")
        rows = (observation.spec or {}).get("containers") or []
        if len(rows) > 1:
            return blocked_update(
                artifact,
                observation,
                "kafka_streams_duplicate",
                f"{len(rows)} containers carry runner '{artifact.identity}''s labels; streamt cannot tell which one "
                "it manages.",
            )
        row = rows[0]
        if row["state"] != "running":
            return blocked_update(
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
            return blocked_update(
                artifact,
                observation,
                UPDATE_REASON,
                f"Runner '{artifact.identity}' runs another definition and {bound}; streamt does not change it.",
                changes=changes,
                replacement_ineligible=f"not a predicate-only change: {bound}",
            )
        return blocked_update(
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
        record = AppliedRecord(before.checksum, {"generation": 1})
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
