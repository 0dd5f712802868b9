"""``observe`` as a compact table: one line per resource, the numbers that matter in DETAILS."""

from __future__ import annotations

from typing import Any


def observe_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "No managed resources to observe."
    table = [("MODEL", "RESOURCE", "STATE", "DETAILS")]
    for model in rows:
        for r in model["resources"]:
            table.append((model["name"], f"{r['kind']} {r['name']}", str(r.get("state")), _details(r)))
    widths = [max(len(line[i]) for line in table) for i in range(3)]
    lines = [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c:<{widths[2]}}  {d}".rstrip() for a, b, c, d in table]
    unhealthy = sum(1 for m in rows for r in m["resources"] if r.get("healthy") is False)
    total = sum(len(m["resources"]) for m in rows)
    lines += ["", f"{total - unhealthy} of {total} resources healthy"]
    return "\n".join(lines)


def _details(r: dict[str, Any]) -> str:
    if "error" in r:
        return r["error"]
    parts: list[str] = []
    if "reason" in r:  # why a provider reports the resource unhealthy (a job's failure)
        parts.append(r["reason"])
    if "messages" in r:
        parts.append(f"~{r['messages']} msgs")
        groups = r.get("consumer_groups") or []
        if groups:
            lag = ", ".join(f"{g['group']} {g['lag_messages']}" for g in groups[:3])
            more = f" +{len(groups) - 3} more" if len(groups) > 3 else ""
            parts.append(f"lag {lag}{more}")
        else:
            parts.append("no consumer groups")
    if "records_in_per_second" in r:
        parts.append(f"in {r['records_in_per_second']:g}/s out {r['records_out_per_second']:g}/s")
        parts.append(f"backpressure {r['backpressure_ratio']:.2f}")
        age = r.get("last_checkpoint_age_seconds")
        parts.append(f"checkpoint {age:g}s ago" if age is not None else "no checkpoint yet")
    if "tasks" in r:
        tasks = r["tasks"]
        parts.append(f"tasks {sum(1 for t in tasks if t == 'RUNNING')}/{len(tasks)} RUNNING")
    return ", ".join(parts)
