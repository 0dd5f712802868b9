"""``observe`` for topics: partitions, retained messages and the lag of every group that reads them.

One reader call costs the batched requests of ``streamt_kafka.lag.topic_lag`` for all topics
together, whatever the number of topics or groups. Read-only: it commits nothing and joins no group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import KIND_TOPIC, Artifact, StreamtError

from streamt_kafka.topics_live import RequestCounter


@attrs.define
class TopicRuntimeReader:
    runtime: Any
    counter: RequestCounter = attrs.field(factory=RequestCounter)
    kinds = (KIND_TOPIC,)

    def read(self, artifacts: Sequence[Artifact]) -> dict[str, dict[str, Any]]:
        from streamt_kafka.admin import classify
        from streamt_kafka.lag import topic_lag
        from streamt_kafka.observers import kafka_settings

        names = sorted({a.identity for a in artifacts})
        try:
            facts = topic_lag(kafka_settings(self.runtime), names, self.counter)
        except StreamtError:
            raise
        except Exception as exc:
            raise classify(exc, "read consumer lag") from None
        return {name: _topic(name, facts) for name in names}


def _topic(name: str, facts: dict[str, Any]) -> dict[str, Any]:
    if name not in facts["partitions"]:
        return {"state": "MISSING", "healthy": False}
    groups = [
        {
            "group": group,
            "lag_messages": sum(per_partition.values()),
            "partitions": {str(p): lag for p, lag in sorted(per_partition.items())},
        }
        for group, per_partition in sorted(facts["lag"].get(name, {}).items())
    ]
    return {
        "state": "OK",
        "healthy": True,
        "partitions": facts["partitions"][name],
        "messages": facts["messages"][name],
        "consumer_groups": groups,
        "max_lag_messages": max((g["lag_messages"] for g in groups), default=0),
    }
