"""Effective materialization of a model (dsl.md §9.2)."""

from __future__ import annotations

import re
from typing import Any

_STATEFUL = re.compile(
    r"\b(?:TUMBLE|HOP|SESSION|CUMULATE|ROW_NUMBER|LAG|LEAD|RANK|DENSE_RANK|FIRST_VALUE|LAST_VALUE|NTH_VALUE"
    r"|COUNT|SUM|AVG|MIN|MAX|COLLECT|LISTAGG|ML_PREDICT|ML_EVALUATE)\s*\("
    r"|\bGROUP\s+BY\b|\bJOIN\b|\bSELECT\s+DISTINCT\b|\bORDER\s+BY\b",
    re.IGNORECASE,
)
_BARE_SELECT = re.compile(r"^\s*SELECT\s+\*\s+FROM\s+\S+\s*;?\s*$", re.IGNORECASE | re.DOTALL)

AMBIGUOUS = "ambiguous"
NO_RUNTIME = "no_runtime"


def is_stateful(sql: str) -> bool:
    return _STATEFUL.search(sql) is not None


def infer(
    raw: dict[str, Any], sql_for_inference: str | None, has_gateway: bool, has_flink: bool
) -> tuple[str, str | None]:
    """``(materialization, note)``; ``note`` is ``AMBIGUOUS`` or ``NO_RUNTIME`` for step 6 outcomes."""
    declared = raw.get("declared_materialized")
    if isinstance(declared, str):
        return declared, None
    # A mistyped `sql` (a list, a number) is reported when the model is structured; here it is no SQL.
    sql = raw.get("sql") if isinstance(raw.get("sql"), str) else None
    if raw.get("from_") and not sql:
        return "sink", None
    gateway = raw.get("gateway")
    if isinstance(gateway, dict) and gateway.get("virtual_topic") is not None:
        return "virtual_topic", None
    if not sql:
        return "topic", None
    text = sql_for_inference or sql
    if raw.get("executor") == "kafka_streams":
        return "topic", None
    if is_stateful(text):
        return "flink", None
    if _BARE_SELECT.match(text):
        return "topic", None
    if has_gateway:
        return "virtual_topic", None
    if has_flink:
        return "flink", AMBIGUOUS
    return "flink", NO_RUNTIME
