"""Committed offsets of a runner's consumer group (its application id) on its input topic.

A replacement binds them as lower bounds at plan time and checks them before the candidate starts:
a partition whose committed offset went backwards or disappeared would make the candidate reprocess
or reset (``auto.offset.reset``), which streamt never does silently. Read through the host-side
``runtime.kafka`` listener; errors never repeat the client's text (it may name credentials).
"""

from __future__ import annotations

from typing import Any

from streamt.sdk import Codes, StreamtError

TIMEOUT_MS = 15000


def _unavailable() -> StreamtError:
    return StreamtError(
        Codes.E406_CONNECTION_REFUSED,
        "The committed offsets of the runner's consumer group could not be read from Kafka.",
        "Check runtime.kafka.bootstrap_servers and that the broker is up, then run the command again.",
    )


def _config(runtime: Any) -> dict[str, Any]:
    kafka = runtime.kafka
    config: dict[str, Any] = {"bootstrap_servers": kafka.bootstrap_servers, "request_timeout_ms": TIMEOUT_MS}
    if kafka.security_protocol == "SASL_PLAINTEXT":
        config.update(
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism="PLAIN",
            sasl_plain_username=kafka.sasl_username,
            sasl_plain_password=kafka.sasl_password,
        )
    return config


def committed(runtime: Any, group: str, topic: str) -> dict[str, int | None]:
    """``{"<partition>": offset or None}`` for every partition of ``topic`` (``None``: nothing committed)."""
    from kafka import KafkaAdminClient  # heavy: only replacement steps pay for it

    try:
        admin = KafkaAdminClient(**_config(runtime))
    except Exception:
        raise _unavailable() from None
    try:
        described = admin.describe_topics([topic])
        partitions = sorted(int(p["partition_index"]) for d in described for p in d.get("partitions") or ())
        offsets = admin.list_group_offsets(group).get(group) or {}
    except Exception:
        raise _unavailable() from None
    finally:
        admin.close()
    found = {tp.partition: meta.offset for tp, meta in offsets.items() if tp.topic == topic}
    return {str(p): (int(found[p]) if found.get(p) is not None and found[p] >= 0 else None) for p in partitions}


def regressions(bounds: dict[str, int | None], current: dict[str, int | None]) -> list[str]:
    """Partitions whose committed offset is now below its bound or gone (a bound of ``None`` binds nothing)."""
    out = []
    for partition, bound in sorted(bounds.items(), key=lambda item: int(item[0])):
        now = current.get(partition)
        if bound is not None and (now is None or now < bound):
            out.append(partition)
    return out
