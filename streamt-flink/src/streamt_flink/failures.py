"""Why a Flink job keeps failing: the root cause of its newest entry in ``/jobs/<id>/exceptions``.

Flink reports a failure as a Java stack trace whose ``Caused by:`` lines chain the wrappers
(``JobException: Recovery is suppressed ...``) down to the cause (``EnforcerException: Column 'id'
is NOT NULL ...``, ``JsonParseException: Unrecognized token ...``). The root cause is the deepest
``Caused by:`` line (the first line when there is none): its exception class and its first line of
message, bounded. Messages quote record values (``Failed to deserialize JSON '<the record>'``), so
every quoted text is redacted unless it is a column of the job or a word streamt knows to be no
value (``'null'``, a Flink option key it suggests); ``scheme://...`` addresses are redacted too (they
may carry credentials). Flink's Kafka source names the record it could not read as
``ConsumerRecord(topic = t, partition = p, ..., offset = o, ...)`` in some versions: when it does,
the topic, partition and offset are kept (never the key or value).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

MAX_MESSAGE = 240
NOT_NULL_ENFORCER = "table.exec.sink.not-null-enforcer"
# Quoted words in Flink's messages that are never record data.
_KNOWN_WORDS = frozenset({"null", "true", "false", "DROP", "ERROR", "TRIM_PAD", NOT_NULL_ENFORCER})
_CAUSED_BY = "Caused by: "
_QUOTED = re.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"")
_ADDRESS = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+")
_RECORD = re.compile(r"topic = ([^,\s]+), partition = (\d+),.*?offset = (\d+)")


def root_cause(body: Any, columns: Iterable[str] = ()) -> dict[str, Any] | None:
    """``{"exception", "message", "timestamp"[, "source"]}`` of the newest failure, else ``None``."""
    history = body.get("exceptionHistory") if isinstance(body, dict) else None
    entries = history.get("entries") if isinstance(history, dict) else None
    if not isinstance(entries, list) or not entries or not isinstance(entries[0], dict):
        return None
    newest = entries[0]
    trace = str(newest.get("stacktrace") or newest.get("exceptionName") or "")
    lines = trace.splitlines()
    causes = [line[len(_CAUSED_BY) :] for line in lines if line.startswith(_CAUSED_BY)]
    deepest = causes[-1] if causes else (lines[0] if lines else "")
    exception, _, message = deepest.partition(": ")
    cause: dict[str, Any] = {
        "exception": exception.strip() or str(newest.get("exceptionName") or "unknown"),
        "message": redact(message.strip(), columns),
        "timestamp": int(newest.get("timestamp") or 0),
    }
    record = _RECORD.search(trace)
    if record is not None:
        cause["source"] = {"topic": record[1], "partition": int(record[2]), "offset": int(record[3])}
    return cause


def redact(message: str, columns: Iterable[str] = ()) -> str:
    """``message`` without record values or addresses, at most ``MAX_MESSAGE`` characters."""
    allowed = _KNOWN_WORDS | set(columns)

    def quoted(match: re.Match[str]) -> str:
        text = match[1] if match[1] is not None else match[2]
        return match[0] if text in allowed else "'<redacted>'"

    clean = _ADDRESS.sub("<address>", _QUOTED.sub(quoted, message))
    return clean if len(clean) <= MAX_MESSAGE else clean[: MAX_MESSAGE - 3] + "..."


def describe(cause: dict[str, Any] | None) -> str:
    """One line for plan summaries and status: ``EnforcerException: Column 'id' is NOT NULL ...``."""
    if not cause:
        return "no exception reported yet"
    short = str(cause["exception"]).rsplit(".", 1)[-1]
    where = cause.get("source")
    at = f" (at {where['topic']}[{where['partition']}]@{where['offset']})" if where else ""
    return f"{short}: {cause['message']}{at}" if cause.get("message") else f"{short}{at}"
