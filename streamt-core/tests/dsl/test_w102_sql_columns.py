"""W102 for source columns a model's SQL reads but the source does not declare (dsl.md §8)."""

from __future__ import annotations

import pytest
from streamt.sql.columns import referenced_columns


def _model(sql: str) -> str:
    return f'models:\n  - name: clean\n    materialized: flink\n    sql: "{sql}"\n'


@pytest.mark.parametrize("mode", ["json", "text"])
def test_undeclared_column_in_sql_is_w102(mode: str, streamt_project, base_files, cli) -> None:
    files = {**base_files, "models/clean.yml": _model("SELECT id, amount, colour FROM {{ source('events') }}")}
    run = cli(mode, "validate", "-p", streamt_project(files))
    assert run.exit_code == 0
    message = "Column 'colour' used by model 'clean' is not declared on source 'events'"
    if mode == "json":
        assert run.codes == ["W102_MISSING_SOURCE_COLUMN"]
        assert run.envelope["warnings"][0]["message"] == message
        assert run.envelope["warnings"][0]["location"] == "models/clean.yml:2:5"
    else:
        assert "W102_MISSING_SOURCE_COLUMN" in run.stderr and message in run.stderr


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT e.id, e.amount AS total FROM {{ source('events') }} e WHERE e.amount > 3 ORDER BY total",
        "SELECT id, SUM(amount) AS amount FROM {{ source('events') }} GROUP BY id",
        "SELECT ID, CAST(amount AS BIGINT) AS a FROM {{ source('events') }} WHERE id <> 'colour' -- colour",
        "SELECT window_start, COUNT(*) AS n FROM {{ source('events') }} GROUP BY window_start",
        "SELECT * FROM (SELECT colour FROM {{ source('events') }})",  # subquery: not analysed, no guess
    ],
)
def test_declared_or_unanalysable_sql_has_no_w102(sql: str, streamt_project, base_files, cli) -> None:
    run = cli("json", "validate", "-p", streamt_project({**base_files, "models/clean.yml": _model(sql)}))
    assert "W102_MISSING_SOURCE_COLUMN" not in run.codes


def test_source_without_columns_is_not_checked(streamt_project, base_files, cli) -> None:
    files = {
        **base_files,
        "sources/events.yml": "sources:\n  - {name: events, topic: events.v1}\n",
        "models/clean.yml": _model("SELECT colour FROM {{ source('events') }}"),
    }
    assert cli("json", "validate", "-p", streamt_project(files)).codes == ["W203_SOURCE_NO_COLUMNS"]


def test_model_dependency_makes_the_check_skip(streamt_project, base_files, cli) -> None:
    files = dict(base_files)
    files["models/clean.yml"] += (
        "  - name: joined\n    materialized: flink\n"
        "    sql: SELECT a.id, b.colour FROM {{ source('events') }} a JOIN {{ ref('clean') }} b ON a.id = b.id\n"
    )
    assert "W102_MISSING_SOURCE_COLUMN" not in cli("json", "validate", "-p", streamt_project(files)).codes


def test_referenced_columns_tokenizer() -> None:
    topic = "payments.card-events.v1"
    sql = f"SELECT p.amount_cents AS c, `odd name`, UPPER(status) FROM {topic} AS p WHERE p.x = 'y' /* z */"
    assert referenced_columns(sql, (topic,)) == {"amount_cents", "odd name", "status", "x"}
    assert referenced_columns("WITH a AS (SELECT 1) SELECT * FROM a", ("t",)) is None
