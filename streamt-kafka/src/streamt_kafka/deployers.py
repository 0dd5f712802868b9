"""Deployers: execute planned topic and subject actions, reporting each outcome exactly.

Topic actions run in batches (one CreateTopics, CreatePartitions or
IncrementalAlterConfigs request per batch); core records durable progress
before and after each batch. A topic missing from a response, a timeout or a
dropped connection is ``unknown``, never success. Rollback only deletes what
this run created.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    CREATE,
    FAILED,
    KIND_SCHEMA,
    KIND_TOPIC,
    OK,
    UNKNOWN,
    UPDATE,
    Action,
    Artifact,
    Outcome,
    StreamtError,
)

from streamt_kafka.observers import desired_topic, kafka_settings, registry_client
from streamt_kafka.topics_live import UNKNOWN_OUTCOME, RequestCounter

# Broker errors after which the change may still have happened.
# How long created topics may take to show in metadata before apply moves on (acknowledged is created).
# The broker publishes a batch only after creating the logs of every earlier one: under load 5-7 the
# last batch of a 10,000-topic apply (four batches) was still unlisted after 40 s.
WAIT_FOR_METADATA_SECONDS = 30.0
WAIT_SECONDS_PER_TOPIC = 0.05
# The KRaft controller refuses a request needing more than 10,000 metadata records ("excessively large
# batch operation"), so a batch is bounded by records (a topic needs one, one per partition and one per
# config), with room to spare, rather than by topics: 3,000 one-partition topics with one config each.
MAX_BATCH_RECORDS = 9_000
# The controller needs longer for a larger batch (~2.5 ms per record measured under load 6-7): a create
# request may take the usual timeout plus this much per record before its outcome counts as unknown.
TIMEOUT_MS_PER_RECORD = 5
_UNCERTAIN = {UNKNOWN_OUTCOME, "RequestTimedOutError", "NotControllerError", "KafkaTimeoutError"}


def _outcome(error: str | None) -> Outcome:
    if error is None:
        return OK
    return Outcome(UNKNOWN if error in _UNCERTAIN else FAILED, error)


@attrs.define
class TopicDeployer:
    runtime: Any
    counter: RequestCounter = attrs.field(factory=RequestCounter)
    kinds = (KIND_TOPIC,)
    max_batch = MAX_BATCH_RECORDS
    max_batch_cost = MAX_BATCH_RECORDS

    @staticmethod
    def batch_cost(action: Action, artifact: Artifact) -> int:
        """The metadata records the controller may write for this topic: the topic, each partition, each
        config (an upper bound for an update, which writes only the new partitions and changed keys)."""
        spec = artifact.spec
        return 1 + max(0, int(spec.get("partitions", 0))) + len(spec.get("config") or {})

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        """Execute one batch of same-kind ``create`` or ``update`` actions."""
        from streamt_kafka.admin import REQUEST_TIMEOUT_MS, admin_client

        names = [a.identity for a, _ in pairs]
        records = sum(self.batch_cost(a, artifact) for a, artifact in pairs)
        try:
            with admin_client(
                kafka_settings(self.runtime), REQUEST_TIMEOUT_MS + TIMEOUT_MS_PER_RECORD * records
            ) as admin:
                if action == CREATE:
                    return self._create(admin, pairs)
                if action == UPDATE:
                    return self._update(admin, pairs)
        except StreamtError as exc:
            # Could not even connect: nothing was sent.
            return dict.fromkeys(names, Outcome(FAILED, exc.diagnostics[0].code.code))
        except Exception as exc:
            return dict.fromkeys(names, Outcome(UNKNOWN, type(exc).__name__))
        raise ValueError(f"topic deployer cannot {action}")

    def _create(self, admin: Any, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        from streamt_kafka.topic_reads import wait_until_ready
        from streamt_kafka.topics_live import create_topics_with_ids

        errors, ids = create_topics_with_ids(admin, [desired_topic(artifact) for _, artifact in pairs], self.counter)
        created = [name for name, error in errors.items() if error is None]
        if created:
            # The broker acknowledged the creates; wait until metadata shows them, so that the
            # plan right after apply observes them (KRaft propagates asynchronously).
            self.counter.add("wait_for_topics")
            # Acknowledged is created: a slow metadata cache is no failure.
            with contextlib.suppress(Exception):
                wait_until_ready(admin, created, WAIT_FOR_METADATA_SECONDS + WAIT_SECONDS_PER_TOPIC * len(created))
        # The ownership record keeps the created topic's ID: a later plan can tell this topic from
        # one that was deleted and recreated under the same name outside streamt.
        return {
            name: attrs.evolve(_outcome(error), attributes={"topic_id": ids[name]})
            if error is None and name in ids
            else _outcome(error)
            for name, error in errors.items()
        }

    def _update(self, admin: Any, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        from streamt_kafka.topics_live import alter_topic_configs, increase_partitions

        totals: dict[str, int] = {}
        configs: dict[str, dict[str, str]] = {}
        for action, artifact in pairs:
            changes = action.evidence.get("changes", {})
            if "partitions" in changes:
                totals[artifact.identity] = int(artifact.spec["partitions"])
            keys = [k.split(".", 1)[1] for k in changes if k.startswith("config.")]
            if keys:
                configs[artifact.identity] = {k: str(artifact.spec["config"][k]) for k in keys}
        grown = increase_partitions(admin, totals, self.counter)
        altered = alter_topic_configs(admin, configs, self.counter) if configs else {}
        outcomes: dict[str, Outcome] = {}
        for action, _ in pairs:
            name = action.identity
            first, second = _outcome(grown.get(name)), _outcome(altered.get(name))
            if first.ok and second.ok:
                outcomes[name] = OK
            elif name in grown and name in altered and first.ok != second.ok:
                # Half of the change happened: neither "done" nor "nothing changed".
                failed = second if first.ok else first
                outcomes[name] = Outcome(UNKNOWN, failed.error)
            else:
                outcomes[name] = first if not first.ok else second
        return outcomes

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Delete a topic this run created; ``False`` when that cannot be confirmed."""
        from streamt_kafka.admin import admin_client
        from streamt_kafka.topics_live import delete_topics

        if action.action != CREATE:
            return False
        try:
            with admin_client(kafka_settings(self.runtime)) as admin:
                return delete_topics(admin, [artifact.identity], self.counter).get(artifact.identity, "") is None
        except Exception:
            return False


@attrs.define
class SchemaDeployer:
    runtime: Any
    kinds = (KIND_SCHEMA,)
    max_batch = 1  # the registry has no batch write

    def apply(self, action: str, pairs: Sequence[tuple[Action, Artifact]]) -> dict[str, Outcome]:
        client = registry_client(self.runtime)
        outcomes: dict[str, Outcome] = {}
        for planned, artifact in pairs:
            live = (planned.evidence.get("observation") or {}).get("spec") or {}
            level = artifact.spec.get("compatibility")
            changed_level = False
            try:
                # The level first: a registration must be judged by the rule the project declares.
                if level and level != live.get("compatibility"):
                    client.set_compatibility(artifact.identity, level)
                    changed_level = True
                if not live.get("identical"):
                    client.register(artifact.identity, artifact.spec["schema"], artifact.spec["format"])
                outcomes[artifact.identity] = OK
            except StreamtError as exc:
                code = exc.diagnostics[0].code.code
                # A refusal (incompatible, unauthorized) changed nothing, unless the level was already
                # set; silence or a 5xx may have changed something.
                refused = code.startswith(("E402", "E404", "E405")) and not changed_level
                outcomes[artifact.identity] = Outcome(FAILED if refused else UNKNOWN, code)
        return outcomes

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        """Remove a subject this run created (soft, then permanent delete)."""
        if action.action != CREATE:
            return False
        try:
            return bool(registry_client(self.runtime).delete_subject(artifact.identity))
        except StreamtError:
            return False
