"""Identity changes: a job, runner or connector compiled under another runtime identity.

Detected by the compiled artifacts, not the declaration name: when a declaration's job artifact
has another identity at the head (a renamed model, a changed job or connector name), apply creates
a **new** resource beside the old one. The new one has a new consumer group, so it starts where a
new group starts (Flink's ``scan.startup.mode``, the runner's ``initial_offset``, Connect's default
``earliest``): a full reprocessing when that is the earliest offset. The old one is not removed by
a changed declaration and keeps running, writing the same output: a duplicate writer until it is
removed by a reviewed removal. What is read here is the compiled spec each provider wrote.
"""

from __future__ import annotations

import re
from typing import Any

from streamt.impact.changes import BREAKING, FieldChange

_GROUP = re.compile(r"'properties\.group\.id'\s*=\s*'([^']*)'")
_STARTUP = re.compile(r"'scan\.startup\.mode'\s*=\s*'([^']*)'")
JOB_KINDS = ("flink_job", "kafka_streams_job", "connector")


def runtime_of(artifact: Any) -> dict[str, str | None]:
    """What runs: its name, consumer group, where a new group starts, and what it writes."""
    spec = artifact.spec
    if artifact.kind == "flink_job":
        text = "\n".join(str(s) for s in spec.get("statements") or ())
        group, start = _GROUP.search(text), _STARTUP.search(text)
        return {
            "name": str(spec.get("pipeline_name") or artifact.identity),
            "group": group.group(1) if group else None,
            "start": start.group(1) if start else "the group's committed offsets, else the connector default",
            "writes": (spec.get("sink") or {}).get("topic"),
        }
    if artifact.kind == "kafka_streams_job":
        return {
            "name": str(spec.get("application_id") or artifact.identity),
            "group": spec.get("application_id"),
            "start": (spec.get("runtime") or {}).get("initial_offset"),
            "writes": spec.get("output_topic"),
        }
    config = spec.get("config") or {}
    return {
        "name": artifact.identity,
        "group": f"connect-{artifact.identity}",
        "start": config.get("consumer.override.auto.offset.reset") or "earliest",
        "writes": config.get("topics") and f"the sink of topics {config['topics']}",
    }


def identity_changes(before: dict[tuple[str, str], Any], after: dict[tuple[str, str], Any]) -> list[FieldChange]:
    """One breaking change per job kind whose single artifact has another identity at the head."""
    fields = []
    for kind in JOB_KINDS:
        old = [a for (k, _), a in sorted(before.items()) if k == kind]
        new = [a for (k, _), a in sorted(after.items()) if k == kind]
        if len(old) != 1 or len(new) != 1 or old[0].identity == new[0].identity:
            continue
        was, now = runtime_of(old[0]), runtime_of(new[0])
        if was["name"] == now["name"]:
            continue
        what = kind.replace("_", " ")
        writes = f", writing {was['writes']}," if was["writes"] else ""
        fields.append(
            FieldChange(
                field=f"identity.{kind}",
                before=was["name"],
                after=now["name"],
                classification=BREAKING,
                reason=f"a new {what} {now['name']} with a new consumer group {now['group']} starting at "
                f"{now['start']}; the old {what} {was['name']}{writes} keeps running until removed: "
                "a duplicate writer",
                workflow="identity_change",
                flows=True,
            )
        )
    return fields
