from __future__ import annotations

import pytest
from streamt_flink import query
from streamt_flink.query import analyze, substitute_relations


def test_windowed_aggregation_is_append_only() -> None:
    shape = analyze(
        "SELECT k, TUMBLE_START(ts, INTERVAL '1' MINUTE) AS ws, COUNT(*) AS n FROM t "
        "GROUP BY k, TUMBLE(ts, INTERVAL '1' MINUTE)"
    )
    assert shape.windowed and shape.stateful and not shape.updating
    assert [p.name for p in shape.projections] == ["k", "ws", "n"]


def test_plain_group_by_emits_updates_keyed_by_its_groups() -> None:
    shape = analyze("SELECT region, SUM(x) AS total FROM t WHERE y > 0 GROUP BY region")
    assert shape.updating
    assert shape.group_by == ("region",)


def test_stateless_filter() -> None:
    shape = analyze("SELECT a.x, b AS bb, c cc FROM t AS a WHERE a.x = 'GROUP BY'")
    assert not shape.stateful and not shape.updating
    assert [p.name for p in shape.projections] == ["x", "bb", "cc"]


def test_joins_and_ml_functions_are_detected() -> None:
    assert analyze("SELECT a.x FROM a LEFT OUTER JOIN b ON a.k = b.k").stateful
    assert analyze("SELECT * FROM ML_PREDICT(TABLE t, DESCRIPTOR(x))").uses_ml


def test_inner_group_by_does_not_count_as_outer() -> None:
    shape = analyze("SELECT n FROM (SELECT COUNT(*) AS n FROM t GROUP BY k) AS s")
    assert shape.group_by == ()


def test_substitute_relations() -> None:
    sql = "SELECT * FROM {{ source('a') }} JOIN {{ref(\"b\")}} ON 1 = 1"
    assert substitute_relations(sql, lambda kind, name: f"<{kind}:{name}>") == (
        "SELECT * FROM <source:a> JOIN <ref:b> ON 1 = 1"
    )


def test_reserved_aliases_are_quoted_outside_cast() -> None:
    from streamt_flink.query import quote_reserved_aliases

    sql = "SELECT COUNT(*) as count, CAST(x AS DATE) AS d, 'a AS hour' AS s, TUMBLE_END(t, i) AS hour FROM t"
    assert quote_reserved_aliases(sql) == (
        "SELECT COUNT(*) as `count`, CAST(x AS DATE) AS d, 'a AS hour' AS s, TUMBLE_END(t, i) AS `hour` FROM t"
    )


def test_prechecks_never_miss_what_the_parser_sees() -> None:
    from streamt_flink.query import analyze, maybe_ml, maybe_stateful

    for sql in (
        "SELECT a FROM t",
        "SELECT a, COUNT /* c */ (*) AS n FROM t GROUP BY a",
        "SELECT DISTINCT a FROM t",
        "SELECT a FROM t LEFT JOIN u ON t.k = u.k",
        "SELECT ML_PREDICT('m', a) FROM t",
        "SELECT a FROM t WHERE b > 1",
    ):
        shape = analyze(sql)
        assert maybe_stateful(sql) or not shape.unbounded_state, sql
        assert maybe_ml(sql) or not shape.uses_ml, sql
    assert not maybe_stateful("SELECT a, b FROM t WHERE b > 1")


def test_references_keep_their_qualifier_and_aliases_are_not_columns() -> None:
    from streamt_flink.query import analyze

    shape = analyze("SELECT o.id, c.name AS cname, amount x FROM `orders` o JOIN `cust` AS c ON o.k = c.k")
    assert shape.references == {("o", "id"), ("c", "name"), ("", "amount"), ("o", "k"), ("c", "k")}
    assert shape.aliases == {("o", "orders"), ("c", "cust")}
    assert shape.outer_join is False and analyze("SELECT a FROM t LEFT JOIN u ON t.a = u.a").outer_join


def test_table_names_stay_unique_when_topics_collide() -> None:
    from streamt_flink.ddl import sink_key, table_names

    names = table_names(["a.b", "a_b", "c-d"], "a_b")
    assert names["a_b"] == "a_b" and names["c-d"] == "c_d"
    assert names["a.b"].startswith("a_b_") and names["a.b"] != "a_b"
    assert names[sink_key("a_b")] == "a_b_sink"
    assert table_names(["a_b", "a.b"]) == {k: v for k, v in names.items() if k in ("a.b", "a_b")}


def test_ungrouped_tokens_are_the_leaves_of_a_full_parse() -> None:
    """``_tokens`` skips sqlparse's grouping; its leaves must match ``sqlparse.parse``'s (guards upgrades)."""
    import sqlparse
    from sqlparse import tokens as T
    from streamt_flink.query import _tokens

    queries = [
        "SELECT a * b AS c, * FROM `t` AS x -- note\nWHERE x.k <> 'GROUP BY' /* c */ AND v > -1.5e3",
        "SELECT k, COUNT(*) AS `count` FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k",
        "SELECT CASE WHEN v IS NULL THEN 0 ELSE v END AS v FROM a LEFT OUTER JOIN b ON a.k = b.k; SELECT 2",
        "",
    ]
    for sql in queries:
        flat = sqlparse.parse(sql)[0].flatten() if sql else []
        leaves = [t for t in flat if not t.is_whitespace and t.ttype not in T.Comment]
        # Grouping retypes an arithmetic `*` from Wildcard to Operator; nothing in `analyze` reads either.
        same = [(t.value, T.Operator if t.ttype is T.Wildcard else t.ttype) for t in leaves]
        assert [(t.value, T.Operator if t.ttype is T.Wildcard else t.ttype) for t in _tokens(sql)] == same


def test_repeated_parts_of_shapes_are_one_object_and_keep_their_values() -> None:
    # Two queries with the same SELECT list and no window: the parts are shared, the shapes still differ.
    first = analyze("SELECT id, amount FROM shared_parts_a WHERE amount > 1")
    second = analyze("SELECT id, amount FROM shared_parts_b WHERE amount > 2")
    assert first.projections is second.projections
    assert first.time_columns is second.time_columns and first.time_columns == frozenset()
    assert [p.name for p in second.projections] == ["id", "amount"]
    grouped = analyze("SELECT id, SUM(amount) AS amount FROM shared_parts_a GROUP BY id")
    assert grouped.functions == frozenset({"SUM"}) and grouped.group_by == ("id",)
    assert grouped.projections != first.projections


def test_the_shared_parts_table_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(query, "_SHARED", {})
    monkeypatch.setattr(query, "_SHARED_MAX", 3)
    shapes = [query.analyze.__wrapped__(f"SELECT c{i} AS n{i}, x FROM bounded_t GROUP BY c{i}") for i in range(20)]
    assert len(query._SHARED) == 3
    # Past the bound parts are no longer shared, and every shape still has its own values.
    assert [s.group_by for s in shapes] == [(f"c{i}",) for i in range(20)]
    assert [[p.name for p in s.projections] for s in shapes] == [[f"n{i}", "x"] for i in range(20)]
