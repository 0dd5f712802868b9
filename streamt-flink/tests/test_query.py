from __future__ import annotations

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
