"""The operational workflows a change can require, by stable id (the ``workflow`` field of a change)."""

from __future__ import annotations

WORKFLOWS: dict[str, str] = {
    "adoption": "claim the existing resource with `streamt adopt --kind <kind> --name <name>` and its confirmation",
    "connector_replacement": "a new connector class: review `streamt plan --out`, then `streamt apply --plan`; "
    "remove the old connector through a `lifecycle.connector_removals` tombstone",
    "executor_replacement": "the job moves to another executor: deploy the new one through a reviewed plan and "
    "remove the old job (it keeps running and writing until removed)",
    "flink_savepoint_upgrade": "the Flink job changes: stop it with a savepoint and start the new version from it "
    "through a reviewed `streamt plan --out` / `streamt apply --plan`",
    "identity_change": "what runs gets a new runtime identity: apply creates the new one (a new consumer group, "
    "from its start position) beside the old one, which keeps running; deploy through a reviewed "
    "`streamt plan --out` / `streamt apply --plan`, then stop and remove the old one (a lifecycle tombstone where "
    "one exists, or by hand), or keep the old name",
    "kafka_streams_replacement": "reviewed Kafka Streams runner replacement: `streamt plan --out`, "
    "`streamt apply --plan` (only predicate-only updates are deployable; other changes are blocked)",
    "materialization_change": "the resource changes kind: create the new artifacts through a reviewed plan and "
    "remove the old ones explicitly (a lifecycle tombstone or by hand)",
    "ownership_release": "streamt stops managing the resource; the live resource and its data stay in place",
    "partition_reduction": "Kafka cannot reduce partitions: `plan` blocks it (kafka_partition_reduction); "
    "recreate the topic outside streamt and re-adopt it",
    "replication_factor_change": "apply does not reassign partitions (kafka_replication_factor_change): run the "
    "reassignment with Kafka's tools, then re-plan",
    "reviewed_removal": "deletion never follows from removing a declaration: declare a `lifecycle` tombstone where "
    "one exists, review `streamt plan --out`, then `streamt apply --plan` (with --force unless "
    "safety.allow_destructive), or remove the live resource by hand",
}
