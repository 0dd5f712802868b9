"""The query a model's job runs: its SQL with each ``source()``/``ref()`` as the job's table name.

Compile analyzes this text both for the job itself (``job``) and for the columns the model hands
downstream (``relations``), so that each model's SQL is tokenized once per compile.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from streamt_flink import ddl
from streamt_flink.query import quote_reserved_aliases, substitute_relations

if TYPE_CHECKING:
    from streamt_flink.relations import Relation

_JINJA_MARKER = re.compile(r"\{[{%#]")  # `{{`, `{%` or `{#`


def job_tables(model: Any, relations: list[Relation]) -> dict[str, str]:
    """Topic -> table name for every table of the job (``ddl.sink_key`` for its sink)."""
    return ddl.table_names([r.topic for r in relations], model.topic_name)


def render_query(model: Any, relations: list[Relation], tables: dict[str, str]) -> str:
    """The model SQL with ``source()``/``ref()`` turned into the job's (quoted) table names."""
    by_name = {(r.kind, r.name): ddl.quote_ident(tables[r.topic]) for r in relations}

    def table(kind: str, name: str) -> str:
        return by_name[("source" if kind == "source" else "model", name)]

    query = substitute_relations(model.sql or "", table)
    if _JINJA_MARKER.search(query) is None:
        return quote_reserved_aliases(query.strip().rstrip(";").strip())
    # Other Jinja (env(), config()) was rendered by the loader, which wrote physical topic names.
    rendered = model.rendered_sql or ""
    for relation in sorted(relations, key=lambda r: -len(r.topic)):
        quoted = ddl.quote_ident(tables[relation.topic])
        rendered = re.sub(rf"(?<![\w.`-]){re.escape(relation.topic)}(?![\w.`-])", quoted, rendered)
    return quote_reserved_aliases(rendered.strip().rstrip(";").strip())
