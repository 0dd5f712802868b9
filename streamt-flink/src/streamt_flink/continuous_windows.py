"""Continuous-test assertions that need state across rows, as append-only windowed Flink SQL.

Each becomes a ``SELECT`` over a processing-time tumbling window (window table function over a view
of the needed columns and the ``_streamt_proc`` column the test job adds to its source table), so
the job's sink stays an append-only Kafka topic: a window emits its violations when it closes.

* ``unique_key`` / ``unique`` — a key seen more than once in a window (``window``, default 1 minute);
  ``tolerance`` allows that many repeats.
* ``throughput`` — a window whose records per second fall below ``min_per_second`` or rise above
  ``max_per_second``. A window with no record emits nothing, so an idle topic is not reported.
* ``distribution`` — per bucket ``{min, max, expected_ratio, tolerance}`` (or ``max_ratio``), a window
  whose share of ``column`` values in ``[min, max)`` leaves the allowed band.

* ``foreign_key`` — a value with no ``ref_key`` in the referenced model's topic within ``window``
  (``foreign_key_parts``: a processing-time LEFT interval join).
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from streamt_flink import ddl
from streamt_flink.job import source_statement
from streamt_flink.relations import model_relation, source_relation

PROC = "_streamt_proc"
# Windows read a view of only the columns they need: a tested model may itself have `window_start` /
# `window_end` columns, which would clash with the ones the window function adds.
WINDOW_VIEW = "_streamt_windowed"
DEFAULT_WINDOW_SECONDS = 60
_UNITS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}
_DURATION = re.compile(r"^\s*(\d+)\s*([a-z]+?)s?\s*$")


def window_seconds(value: Any) -> int | None:
    """``60``, ``"10 seconds"``, ``"5m"``, ``"1 hour"`` -> seconds; ``None`` for anything else."""
    if value is None:
        return DEFAULT_WINDOW_SECONDS
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = _DURATION.match(str(value).lower())
    if match is None or match.group(2) not in _UNITS or int(match.group(1)) <= 0:
        return None
    return int(match.group(1)) * _UNITS[match.group(2)]


def window_view(table: str, columns: list[str]) -> str:
    selected = ", ".join([*(ddl.quote_ident(c) for c in columns), ddl.quote_ident(PROC)])
    return f"CREATE TEMPORARY VIEW IF NOT EXISTS {ddl.quote_ident(WINDOW_VIEW)} AS SELECT {selected} FROM {table}"


def windowed_branches(test: Any, kind: str, body: dict[str, Any], view: str) -> tuple[list[str], set[str]] | None:
    """``(SELECT statements, referenced columns)``, or ``None`` when ``kind`` is not a windowed one."""
    if kind not in ("unique_key", "unique", "throughput", "distribution"):
        return None
    seconds = window_seconds(body.get("window"))
    if seconds is None:
        return [], set()
    descriptor = f"DESCRIPTOR({ddl.quote_ident(PROC)})"
    source = f"TABLE(TUMBLE(TABLE {ddl.quote_ident(view)}, {descriptor}, INTERVAL '{seconds}' SECOND))"
    if kind in ("unique_key", "unique"):
        return _unique(test, kind, body, source)
    if kind == "throughput":
        return _throughput(test, body, source, seconds)
    return _distribution(test, body, source)


def _select(test: Any, kind: str, column: str | None, observed: str) -> str:
    q = ddl.quote_string
    column_sql = q(column) if column else "CAST(NULL AS STRING)"
    return (
        f"SELECT {q(test.name)} AS `test_name`, {q(test.model)} AS `model`, {q(kind)} AS `assertion`, "
        f"{column_sql} AS `column_name`, {observed} AS `observed`, CURRENT_TIMESTAMP AS `detected_at`"
    )


def _unique(test: Any, kind: str, body: dict[str, Any], source: str) -> tuple[list[str], set[str]]:
    key = body.get("columns") if kind == "unique" else body.get("key")
    columns = [str(c) for c in key] if isinstance(key, list) else ([str(key)] if key else [])
    if not columns:
        return [], set()
    tolerance = body.get("tolerance")
    allowed = int(tolerance) if isinstance(tolerance, int) and not isinstance(tolerance, bool) and tolerance > 0 else 0
    keys = ", ".join(ddl.quote_ident(c) for c in columns)
    observed = " || ',' || ".join(f"COALESCE(CAST({ddl.quote_ident(c)} AS STRING), 'null')" for c in columns)
    statement = (
        f"{_select(test, kind, ','.join(columns), observed)}\nFROM {source}\n"
        f"GROUP BY `window_start`, `window_end`, {keys}\nHAVING COUNT(*) > {1 + allowed}"
    )
    return [statement], set(columns)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _throughput(test: Any, body: dict[str, Any], source: str, seconds: int) -> tuple[list[str], set[str]]:
    low, high = _number(body.get("min_per_second")), _number(body.get("max_per_second"))
    rate = f"CAST(COUNT(*) AS DOUBLE) / {seconds}"
    bounds = ([f"{rate} < {low!r}"] if low is not None else []) + ([f"{rate} > {high!r}"] if high is not None else [])
    if not bounds:
        return [], set()
    statement = (
        f"{_select(test, 'throughput', None, f'CAST({rate} AS STRING)')}\nFROM {source}\n"
        f"GROUP BY `window_start`, `window_end`\nHAVING {' OR '.join(bounds)}"
    )
    return [statement], set()


def _distribution(test: Any, body: dict[str, Any], source: str) -> tuple[list[str], set[str]]:
    column, buckets = body.get("column"), body.get("buckets")
    if not column or not isinstance(buckets, list):
        return [], set()
    q = ddl.quote_ident(str(column))
    statements = []
    for bucket in buckets:
        if not isinstance(bucket, dict):
            continue
        low, high = _number(bucket.get("min")), _number(bucket.get("max"))
        expected, tolerance, ceiling = (_number(bucket.get(k)) for k in ("expected_ratio", "tolerance", "max_ratio"))
        inside = " AND ".join(
            ([f"{q} >= {low!r}"] if low is not None else []) + ([f"{q} < {high!r}"] if high is not None else [])
        )
        if not inside:
            continue
        share = f"CAST(SUM(CASE WHEN {inside} THEN 1 ELSE 0 END) AS DOUBLE) / COUNT(*)"
        limits = []
        if expected is not None:
            band = tolerance if tolerance is not None else 0.0
            limits += [f"{share} < {expected - band!r}", f"{share} > {expected + band!r}"]
        if ceiling is not None:
            limits.append(f"{share} > {ceiling!r}")
        if limits:
            statements.append(
                f"{_select(test, 'distribution', str(column), f'CAST({share} AS STRING)')}\nFROM {source}\n"
                f"GROUP BY `window_start`, `window_end`\nHAVING {' OR '.join(limits)}"
            )
    return statements, {str(column)} if statements else set()


def foreign_key_parts(
    project: Any, test: Any, index: int, body: dict[str, Any], job: str
) -> tuple[str, str, str] | None:
    """``(referenced table DDL, violation SELECT, column)`` for a ``foreign_key``, or ``None`` if unsupported.

    A LEFT interval join on processing time: a row whose ``column`` finds no ``ref_key`` in the referenced
    model's topic within ``window`` either side is a violation, emitted once the interval has passed (so the
    join stays append-only). ``match_rate`` (a tolerated share of misses) is not compiled.
    """
    column, ref_name, ref_key = body.get("column"), body.get("ref_model"), body.get("ref_key")
    seconds = window_seconds(body.get("window"))
    if not (column and ref_name and ref_key) or seconds is None or body.get("match_rate") is not None:
        return None
    model = project.model(str(ref_name))
    source = project.source(str(ref_name)) if model is None else None
    if model is None and source is None:
        return None
    relation = model_relation(project, model) if model is not None else source_relation(source)
    relation = attrs.evolve(relation, proctime=(*relation.proctime, PROC))
    table = f"_streamt_ref_{index}"
    ddl_statement = source_statement(project, relation, job, (str(ref_key),), table=table)
    q = ddl.quote_ident
    left, right = q(WINDOW_VIEW), q(table)
    within = f"INTERVAL '{seconds}' SECOND"
    branch = (
        f"{_select(test, 'foreign_key', str(column), f'CAST(l.{q(str(column))} AS STRING)')}\n"
        f"FROM {left} AS l LEFT JOIN {right} AS r\n"
        f"ON l.{q(str(column))} = r.{q(str(ref_key))} "
        f"AND r.{q(PROC)} BETWEEN l.{q(PROC)} - {within} AND l.{q(PROC)} + {within}\n"
        f"WHERE r.{q(str(ref_key))} IS NULL AND l.{q(str(column))} IS NOT NULL"
    )
    return ddl_statement, branch, str(column)
