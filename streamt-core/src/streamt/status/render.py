"""Status text as the CLI reference shows it."""

from __future__ import annotations

from typing import Any

from streamt.status.report import EXTERNAL, OK, Section


def _detail(key: str, entry: dict[str, Any]) -> str:
    if key == "topics" and entry["exists"]:
        text = f" (partitions: {entry['partitions']}, rf: {entry['replication_factor']})"
        if "message_count" in entry:
            text += f" ~{entry['message_count']} msgs"
        if entry.get("consumer_lag"):
            n = len(entry["consumer_lag"])
            text += f", lag {entry['max_consumer_lag']} (max of {n} group{'s' if n > 1 else ''})"
        elif "consumer_lag" in entry:
            text += ", no consumer groups"
        return text
    if key == "schemas" and entry["exists"]:
        return f" (version {entry['version']})"
    if "error" in entry:
        return f" ({entry['error']})"
    if "reason" in entry:  # why a provider reports the resource unhealthy (a job's failure)
        return f" ({entry['reason']})"
    return ""


def status_text(report: dict[str, Any], listed: tuple[Section, ...]) -> str:
    lines: list[str] = []
    for _kind, key, title in listed:
        entries = report.get(key) or []
        if not entries:
            continue
        lines += [f"{title}:"]
        lines += [f"  {e['status']} {e['name']}{_detail(key, e)}" for e in entries]
        lines.append("")
    for group, topics in sorted((report.get("consumer_groups") or {}).items()):
        lines.append(f"Consumer group {group}: " + ", ".join(f"{t} lag {n}" for t, n in sorted(topics.items())))
    if report.get("consumer_groups"):
        lines.append("")
    external = report.get(EXTERNAL) or []
    if external:
        lines.append(f"External (not inspected; use --include-external): {', '.join(e['name'] for e in external)}")
        lines.append("")
    topics = report.get("topics") or []
    ok = sum(1 for e in topics if e["status"] == OK)
    missing = sum(1 for e in topics if e["status"] == "MISSING")
    jobs = [e for key in ("flink_jobs", "kafka_streams_jobs") for e in report.get(key) or []]
    summary = f"Summary: Topics: {ok} OK, {missing} missing | Jobs: {_counts(jobs)}"
    # The reference's exact line; a connector is not a job: its own count follows when there are any.
    connectors = report.get("connectors") or []
    return "\n".join([*lines, summary + (f" | Connectors: {_counts(connectors)}" if connectors else "")])


def _counts(entries: list[dict[str, Any]]) -> str:
    """``N running, M other``, and the unobserved count only when there is one to report."""
    unobserved = sum(1 for e in entries if e["status"] == "NOT_OBSERVED")
    running = sum(1 for e in entries if e["status"] == "RUNNING")
    other = len(entries) - unobserved - running
    return f"{running} running, {other} other" + (f", {unobserved} not observed" if unobserved else "")
