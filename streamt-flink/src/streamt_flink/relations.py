"""Tables for sources and models: their columns, types and event time, as Flink will read them.

Column types come from declared columns, else inference from the producing model's SELECT
(direct column references keep their input type, ``COUNT`` is ``BIGINT``, window bounds are
``TIMESTAMP(3)``, ``CAST(... AS T)`` is ``T``), else ``None`` (unknown: written as ``STRING`` and
cast explicitly where the job inserts it). The event-time column of a source is ``TIMESTAMP(3)``
with a watermark; a model inherits its upstream's event time when it passes that column through
unchanged, so that a downstream windowed query still sees a time attribute.
"""

from __future__ import annotations

import re
import weakref
from functools import lru_cache
from typing import Any, NamedTuple

import attrs

from streamt_flink.ddl import TableColumn, Watermark, normalize_type
from streamt_flink.jobquery import job_tables, render_query
from streamt_flink.query import QueryShape, analyze, substitute_relations, unquote
from streamt_flink.settings import source_format

EVENT_TIME_TYPE = "TIMESTAMP(3)"
_CAST_RE = re.compile(r"^CAST\s*\((.*)\s+AS\s+(.+)\)(\s+AS\s+\S+)?$", re.IGNORECASE | re.DOTALL)
_COLUMN_PATH_RE = re.compile(r"[\w`.]+")  # `col`, t.col, `t`.`col`
_CALL_RE = re.compile(r"^(\w+)\s*\((.*)\)$", re.DOTALL)
_WINDOW_BOUND_RE = re.compile(r"^(TUMBLE|HOP|SESSION|CUMULATE)_(START|END|ROWTIME)\s*\(", re.IGNORECASE)
WINDOW_COLUMNS = ("window_start", "window_end", "window_time")
DEFAULT_WATERMARK_MS = 5000  # event time declared without a watermark: 5 s out of orderness


@attrs.frozen
class OutputColumn:
    name: str
    type: str | None  # None: unknown (not declared, not inferable)
    expression: str | None = None


@attrs.frozen
class Relation:
    """What a job needs to declare a table over a source or model topic."""

    kind: str  # "source" or "model"
    name: str
    topic: str
    columns: tuple[OutputColumn, ...]
    event_time: str | None = None
    watermark_ms: int = 0
    proctime: tuple[str, ...] = ()
    not_null: frozenset[str] = frozenset()
    format: str = "json"  # "debezium-json" for a model whose job writes a keyless changelog
    ignore_parse_errors: bool = False  # a source's format.ignore_parse_errors: skip undecodable records

    def table_columns(self, extra: tuple[str, ...] = ()) -> list[TableColumn]:
        """The DDL columns; ``extra`` are referenced names missing from an undeclared source."""
        out = []
        for column in self.columns:
            sql_type = EVENT_TIME_TYPE if column.name == self.event_time else (column.type or "STRING")
            out.append(TableColumn(column.name, normalize_type(sql_type), column.name in self.not_null))
        if extra:
            known = {c.name for c in self.columns} | set(self.proctime)
            out.extend(
                TableColumn(name, EVENT_TIME_TYPE if name == self.event_time else "STRING")
                for name in extra
                if name not in known
            )
        if self.event_time and self.event_time not in {c.name for c in out}:
            out.append(TableColumn(self.event_time, EVENT_TIME_TYPE))
        if self.proctime:
            out.extend(TableColumn(name, computed="PROCTIME()") for name in self.proctime)
        return out

    @property
    def watermark(self) -> Watermark | None:
        return Watermark(self.event_time, self.watermark_ms) if self.event_time else None


def _event_time(event_time: Any) -> tuple[str | None, int]:
    if event_time is None or not event_time.column:
        return None, 0
    mark = event_time.watermark
    if mark is None:
        return event_time.column, DEFAULT_WATERMARK_MS
    if mark.strategy == "monotonously_increasing":
        return event_time.column, 0
    return event_time.column, int(mark.max_out_of_orderness_ms)


def source_relation(source: Any) -> Relation:
    declared = source.columns or (source.schema.fields if source.schema else ())
    event = source.event_time or (source.advanced.event_time if source.advanced else None)
    column, ms = _event_time(event)
    physical = tuple(OutputColumn(c.name, c.type) for c in declared if not c.proctime)
    return Relation(
        kind="source",
        name=source.name,
        topic=source.topic,
        columns=physical,
        event_time=column,
        watermark_ms=ms,
        proctime=tuple(c.name for c in declared if c.proctime),
        not_null=frozenset(c.name for c in declared if c.required),
        ignore_parse_errors=bool((decoding := source_format(source)) and decoding.ignore_parse_errors),
    )


def model_query(model: Any) -> str:
    """The model SQL with every ``source()``/``ref()`` call replaced by the logical name.

    Only used for analysis (column names, types); the job itself is rendered separately.
    """
    return substitute_relations(model.sql or "", lambda kind, name: name)


class JobInput(NamedTuple):
    """What a model's job reads: its upstream relations, the job's table names and its rendered query.

    ``query`` is ``None`` when a dependency did not resolve (unknown, or a cycle: validation refuses both
    before compile); the relation is then inferred from the logical text.
    """

    upstream: list[Relation]
    tables: dict[str, str]
    query: str | None


def job_input(project: Any, model: Any) -> JobInput:
    """The inputs ``job.compile_model`` builds on; handing them to ``model_relation`` renders the query once."""
    upstream = relations_of(project, model)
    tables = job_tables(model, upstream)
    try:
        return JobInput(upstream, tables, render_query(model, upstream, tables))
    except KeyError:
        return JobInput(upstream, tables, None)


def model_relation(project: Any, model: Any, given: JobInput | None = None) -> Relation:
    """The table over a model's output topic, as a downstream job reads it.

    ``given``: the model's ``job_input``, when the caller has it (else it is built again if needed).
    """
    relations = _relations(project)
    if project.model(model.name) is model and model.name not in relations.deriving:
        return relations.model(project, model, given)
    return _derive(project, model, relations, given)  # a model the project does not hold: derived, not kept


def _derive(project: Any, model: Any, relations: _Relations, given: JobInput | None = None) -> Relation:
    upstream = relations.upstream(project, model) if given is None else given.upstream
    shape = analyze(_job_query(model, upstream, given)) if model.sql else None
    explicit_event = model.event_time
    event_column, ms = _event_time(explicit_event)
    if model.columns:
        columns = tuple(OutputColumn(c.name, c.type) for c in model.columns)
    elif shape is not None:
        columns = infer_outputs(shape, upstream)
    else:
        columns = upstream[0].columns if len(upstream) == 1 else ()
    if event_column is None:
        # Inherit the upstream event time when this model passes the column through unchanged.
        for relation in upstream:
            passed = next((c for c in columns if c.name == relation.event_time), None)
            if passed is not None and (passed.expression in (None, relation.event_time)):
                event_column, ms = relation.event_time, relation.watermark_ms
                break
    return Relation(kind="model", name=model.name, topic=model.topic_name, columns=columns,
                    event_time=event_column, watermark_ms=ms, format=format_of(model, shape, upstream))  # fmt: skip


def _job_query(model: Any, upstream: list[Relation], given: JobInput | None) -> str:
    """The text ``job.compile_model`` analyzes too (so ``analyze``'s cache parses it once).

    A dependency that did not resolve has no table name; the logical text is analyzed then.
    """
    if given is not None:
        return given.query if given.query is not None else model_query(model)
    try:
        return render_query(model, upstream, job_tables(model, upstream))
    except KeyError:
        return model_query(model)


def format_of(model: Any, shape: QueryShape | None, upstream: list[Relation]) -> str:
    """How the model's job writes its topic (``job._sink`` uses the same rule); ``shape``: its query's.

    A keyless updating result (an outer join, or anything computed from a changelog input) is
    written as a debezium-json changelog; a keyed or grouped one goes to upsert-kafka (json values).
    """
    if shape is None or model.primary_key or model.key:
        return "json"
    if bool(shape.group_by) and not shape.windowed:
        return "json"
    changelog_input = any(r.format == "debezium-json" for r in upstream)
    return "debezium-json" if shape.outer_join or changelog_input else "json"


def relations_of(project: Any, model: Any) -> list[Relation]:
    """The tables a model's job reads: its sources' and upstream models' (unknown names left out)."""
    return _relations(project).upstream(project, model)


class _Relations:
    """One project's relations, each derived once.

    A compile asks for a model's relation as its own output and again for every job downstream of
    it; deriving it afresh each time re-walked whole upstream chains (29,000 derivations for 9,500
    models at 5,000 models). Holds no reference to the project, so that the project can be collected.
    """

    def __init__(self) -> None:
        self.sources: dict[str, Relation | None] = {}
        self.models: dict[str, Relation] = {}
        # Models being derived. Validation refuses cycles (E104) before compile; this only stops one
        # from recursing forever: a dependency still being derived reads as unknown.
        self.deriving: set[str] = set()

    def upstream(self, project: Any, model: Any) -> list[Relation]:
        found = []
        for ref in model.dependencies:
            # A model never reads its own output as an input (a self-reference is E104's to report).
            relation = None if ref.kind != "source" and ref.name == model.name else self.dependency(project, ref)
            if relation is not None:
                found.append(relation)
        return found

    def dependency(self, project: Any, ref: Any) -> Relation | None:
        if ref.kind == "source":
            if ref.name not in self.sources:
                source = project.source(ref.name)
                self.sources[ref.name] = source_relation(source) if source is not None else None
            return self.sources[ref.name]
        model = project.model(ref.name)
        if model is None or model.name in self.deriving:
            return None
        return self.model(project, model)

    def model(self, project: Any, model: Any, given: JobInput | None = None) -> Relation:
        found = self.models.get(model.name)
        if found is None:
            self.deriving.add(model.name)
            try:
                found = self.models[model.name] = _derive(project, model, self, given)
            finally:
                self.deriving.discard(model.name)
        return found


# id(project) -> (weak reference to it, its relations). A Project is frozen and unhashable (it holds
# dicts), so a WeakKeyDictionary cannot take it: the weak reference's callback drops the entry when
# the project is collected, and comparing the referent on lookup keeps a recycled id from reaching a
# dead project's relations.
_BY_PROJECT: dict[int, tuple[weakref.ref[Any], _Relations]] = {}


def _relations(project: Any) -> _Relations:
    key = id(project)
    entry = _BY_PROJECT.get(key)
    if entry is not None and entry[0]() is project:
        return entry[1]

    def forget(reference: weakref.ref[Any]) -> None:
        if _BY_PROJECT.get(key, (None,))[0] is reference:
            del _BY_PROJECT[key]

    relations = _Relations()
    _BY_PROJECT[key] = (weakref.ref(project, forget), relations)
    return relations


def infer_outputs(shape: QueryShape, upstream: list[Relation]) -> tuple[OutputColumn, ...]:
    types: dict[str, str | None] = {}
    for relation in upstream:
        for column in relation.columns:
            types.setdefault(column.name, EVENT_TIME_TYPE if column.name == relation.event_time else column.type)
        if relation.event_time:
            types.setdefault(relation.event_time, EVENT_TIME_TYPE)
    out: list[OutputColumn] = []
    for projection in shape.projections:
        if projection.expression == "*" or projection.expression.endswith(".*"):
            for relation in upstream:
                out.extend(OutputColumn(c.name, types.get(c.name)) for c in relation.columns)
            continue
        if projection.name is None:
            continue
        expression = _strip_alias(projection.expression, projection.name)
        out.append(OutputColumn(projection.name, _infer_type(expression, types), expression))
    # A star over a join (or a UNION's branches) can name a column twice; a table cannot hold it twice.
    first: dict[str, OutputColumn] = {}
    for column in out:
        first.setdefault(column.name, column)
    return tuple(first.values())


def _strip_alias(expression: str, name: str) -> str:
    match = _alias_suffix(name).match(expression)
    return match.group(1).strip() if match else expression


@lru_cache(maxsize=1024)  # column names repeat across a project's models
def _alias_suffix(name: str) -> re.Pattern[str]:
    """``<expression> [AS] name`` (the name optionally backquoted): group 1 is the expression."""
    return re.compile(r"^(.*?)\s+(?:AS\s+)?(`?)" + re.escape(name) + r"\2$", re.IGNORECASE | re.DOTALL)


def _infer_type(expression: str, types: dict[str, str | None]) -> str | None:
    bare = unquote(expression.split(".")[-1]) if _COLUMN_PATH_RE.fullmatch(expression) else None
    if bare is not None:
        return types.get(bare) or (EVENT_TIME_TYPE if bare.lower() in WINDOW_COLUMNS else None)
    cast = _CAST_RE.match(expression)
    if cast:
        return cast.group(2).strip().upper()
    if _WINDOW_BOUND_RE.match(expression):
        return EVENT_TIME_TYPE
    function = _CALL_RE.match(expression)
    if function:
        name, argument = function.group(1).upper(), function.group(2).strip()
        if name == "COUNT":
            return "BIGINT"
        if name in ("SUM", "MIN", "MAX", "FIRST_VALUE", "LAST_VALUE") and _COLUMN_PATH_RE.fullmatch(argument):
            found = types.get(unquote(argument.split(".")[-1]))
            # SUM widens DECIMAL precision to 38: leave it unknown so the job casts it explicitly.
            return None if name == "SUM" and found and found.upper().startswith("DECIMAL") else found
    return None
