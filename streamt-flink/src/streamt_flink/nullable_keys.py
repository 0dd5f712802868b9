"""``W124_UPSERT_KEY_NULLABLE``: an upsert sink keyed by a column that can be NULL upstream.

A non-windowed ``GROUP BY`` writes an ``upsert-kafka`` table whose ``PRIMARY KEY`` is the group
keys; Flink's sink enforces ``NOT NULL`` on it, so one record with a NULL key fails the job, and
it fails again on every restart (the record is re-read from the checkpoint): a crash loop. A key
column is safe when every upstream that has it declares it ``required: true``, when the model's
``WHERE`` says ``<column> IS NOT NULL``, or when the model drops such rows
(``advanced.flink.sink.not_null_enforcer: drop``). Anything else — an undeclared column included —
can be NULL. Only plain column keys are traced (``GROUP BY customer_id``, ``GROUP BY o.customer_id``).
"""

from __future__ import annotations

import re
from typing import Any

from streamt.sdk import Diagnostic

from streamt_flink.codes import UPSERT_KEY_NULLABLE
from streamt_flink.query import analyze, maybe_stateful
from streamt_flink.relations import model_query
from streamt_flink.settings import flink_settings

_PLAIN = re.compile(r"^(?:`?[A-Za-z_][A-Za-z0-9_]*`?\.)?`?([A-Za-z_][A-Za-z0-9_]*)`?$")


def nullable_keys(project: Any, model: Any) -> list[Diagnostic]:
    flink = flink_settings(model)
    enforcer = flink.sink.not_null_enforcer if flink and flink.sink else None
    if enforcer == "drop" or not maybe_stateful(model.sql or ""):
        return []
    shape = analyze(model_query(model))
    if not shape.group_by or shape.windowed:
        return []
    found = []
    for key in shape.group_by:
        plain = _PLAIN.match(key.strip())
        if plain is None:
            continue
        column = plain[1]
        open_ends = _nullable_in(project, model, column)
        if open_ends and not _filtered(model.sql or "", column):
            found.append(_warning(project, model, column, open_ends))
    return found


def _nullable_in(project: Any, model: Any, column: str) -> list[str]:
    """The upstreams of ``model`` where ``column`` is not declared required (all of them if none has it)."""
    upstream = []
    for ref in model.dependencies:
        target = project.source(ref.name) if ref.kind == "source" else project.model(ref.name)
        if target is not None:
            upstream.append((f"{ref.kind} '{ref.name}'", {c.name: c for c in target.columns}))
    having = [(label, columns[column]) for label, columns in upstream if column in columns]
    if not having:
        return [label for label, _ in upstream] or ["its input"]
    return [label for label, declared in having if not declared.required]


def _filtered(sql: str, column: str) -> bool:
    return re.search(rf"\b{re.escape(column)}`?\s+IS\s+NOT\s+NULL\b", sql, re.IGNORECASE) is not None


def _warning(project: Any, model: Any, column: str, open_ends: list[str]) -> Diagnostic:
    return Diagnostic(
        UPSERT_KEY_NULLABLE,
        f"Model '{model.name}' writes an upsert topic keyed by '{column}', which can be NULL upstream "
        f"({', '.join(open_ends)} does not declare it required): one NULL key fails the job on every restart",
        f"Filter it (WHERE {column} IS NOT NULL), declare the column 'required: true' upstream, or set "
        "advanced.flink.sink.not_null_enforcer: drop to drop such rows.",
        project.locations.get(("model", model.name)),
    )
