"""Sample-test building blocks without a broker: budgets, examples, SQL translation and the SQL sandbox."""

from __future__ import annotations

import pytest
from streamt.testrun import Assertion, Target
from streamt_kafka.sample_assert import Row, example
from streamt_kafka.sample_decode import Decoder
from streamt_kafka.sample_read import share
from streamt_kafka.sample_sql import duckdb_sql, evaluate, load


@pytest.mark.parametrize(
    ("budget", "retained", "expected"),
    [
        (10, {0: 100, 1: 100, 2: 100}, {0: 4, 1: 3, 2: 3}),
        (10, {0: 1, 1: 100, 2: 2}, {0: 1, 1: 7, 2: 2}),
        (10, {0: 1, 1: 2}, {0: 1, 1: 2}),
        (0, {0: 5}, {0: 0}),
    ],
)
def test_the_budget_is_water_filled_across_partitions(budget: int, retained: dict, expected: dict) -> None:
    assert share(budget, retained) == expected


def test_examples_never_show_sensitive_values_or_a_sensitive_key() -> None:
    row = Row(1, 7, b"alice@example.com", {"email": "alice@example.com", "amount": -1})
    open_target = Target(kind="model", name="m", topic="t", sensitive=frozenset({"email"}))
    assert example(row, open_target, "amount", -1, show=True) == {
        "partition": 1, "offset": 7, "key": "alice@example.com", "column": "amount", "value": -1,
    }  # fmt: skip
    assert "value" not in example(row, open_target, "email", "alice@example.com", show=True)
    keyed = Target(kind="model", name="m", topic="t", key_column="email", sensitive=frozenset({"email"}))
    assert "key" not in example(row, keyed, "amount", -1, show=True)


def test_backticks_become_duckdb_identifiers_outside_string_literals() -> None:
    assert duckdb_sql("`a b` > 0 AND x = '`not`' AND {{ model }}.y") == "\"a b\" > 0 AND x = '`not`' AND sample.y"


def test_sql_assertions_cannot_read_files() -> None:
    rows = [Row(0, 0, None, {"a": 1})]
    con = load(rows)
    read = Assertion(0, "custom_sql", {"sql": "SELECT count(*) FROM read_csv('/etc/passwd')", "expect": 0})
    result = evaluate(con, read, rows, Target(kind="model", name="m", topic="t"))
    assert result.status == "error" and result.reason and "SQL error" in result.reason


def test_framed_values_without_a_registry_are_undecodable_not_errors() -> None:
    def lookup(schema_id: int) -> None:
        raise LookupError(f"record framed with schema id {schema_id}, but runtime.schema_registry is not set")

    decoded = Decoder(lookup).decode(b"\x00\x00\x00\x00\x07payload")
    assert (
        decoded.row is None
        and decoded.problem == "record framed with schema id 7, but runtime.schema_registry is not set"
    )
