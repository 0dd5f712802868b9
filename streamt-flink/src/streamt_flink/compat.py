"""Will a job's savepoint restore into its changed SQL? Heuristic checks, each with a reason.

Flink SQL gives operators no stable ids: they are derived from the shape of the job graph, and
the state of an aggregate or join is laid out by its keys and accumulators. These checks compare
the recorded statements of the running job with the new ones and name the changes that are known
to break a restore. They read the SQL text (the same parser compile uses), not Flink's plan, so
they are heuristics: a change they pass can still be refused by Flink when it restores, which the
deployer treats as a refused resubmit (the old statements are resubmitted from the same savepoint).
"""

from __future__ import annotations

import re

from streamt_flink.query import analyze

# Calls that hold state whose layout the query's text decides.
AGGREGATES = frozenset(
    {"COUNT", "SUM", "MIN", "MAX", "AVG", "FIRST_VALUE", "LAST_VALUE", "LISTAGG", "COLLECT", "STDDEV", "VARIANCE"}
)
_WINDOW_CALL = re.compile(r"\b(TUMBLE|HOP|CUMULATE|SESSION)\s*\(", re.IGNORECASE)
_TABLE = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`(?:[^`]|``)+`|\S+)", re.IGNORECASE)
_PRIMARY_KEY = re.compile(r"PRIMARY\s+KEY\s*\(([^)]*)\)", re.IGNORECASE)
_INSERT = re.compile(r"^\s*INSERT\s+INTO\s+(`(?:[^`]|``)+`|\S+)\s+(.*)$", re.IGNORECASE | re.DOTALL)


def _norm(text: str) -> str:
    return " ".join(text.replace("`", "").split()).lower()


def _insert(statements: list[str]) -> tuple[str, str]:
    for statement in statements:
        match = _INSERT.match(statement)
        if match:
            return match.group(1), match.group(2)
    return "", ""


def _windows(query: str) -> list[str]:
    """Each window call with its arguments, as written (normalized)."""
    found = []
    for match in _WINDOW_CALL.finditer(query):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(query)):
            depth += {"(": 1, ")": -1}.get(query[end], 0)
            if depth == 0:
                break
        found.append(_norm(query[match.start() : end + 1]))
    return found


def _tables(statements: list[str]) -> tuple[set[str], dict[str, str]]:
    """Table names, and the primary key of each table that declares one."""
    names, keys = set(), {}
    for statement in statements:
        match = _TABLE.match(statement)
        if match:
            name = _norm(match.group(1))
            names.add(name)
            key = _PRIMARY_KEY.search(statement)
            if key:
                keys[name] = _norm(key.group(1))
    return names, keys


def incompatibilities(old: list[str], new: list[str]) -> list[str]:
    """Why the running job's savepoint would not restore into ``new``; empty when no check objects."""
    reasons = []
    old_sink, old_query = _insert(old)
    new_sink, new_query = _insert(new)
    before, after = analyze(old_query), analyze(new_query)
    if [_norm(k) for k in before.group_by] != [_norm(k) for k in after.group_by]:
        reasons.append(f"GROUP BY keys changed ({', '.join(before.group_by) or 'none'} -> "
                       f"{', '.join(after.group_by) or 'none'})")  # fmt: skip
    if _windows(old_query) != _windows(new_query):
        reasons.append("the window changed")
    if sorted(before.functions & AGGREGATES) != sorted(after.functions & AGGREGATES):
        reasons.append("the aggregate functions changed (their accumulators are the state)")
    if before.outer_join != after.outer_join or (before.stateful_clauses != after.stateful_clauses):
        reasons.append("a join, DISTINCT or ORDER BY was added or removed (the operators and their ids change)")
    old_tables, old_keys = _tables(old)
    new_tables, new_keys = _tables(new)
    if old_tables != new_tables or _norm(old_sink) != _norm(new_sink):
        reasons.append("the job reads or writes other tables (the operator ids change)")
    elif old_keys != new_keys:
        reasons.append("a table's primary key changed (the upsert state is keyed by it)")
    return reasons
