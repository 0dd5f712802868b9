"""Sample-test building blocks without a broker: budgets, examples, SQL translation and the SQL sandbox."""

from __future__ import annotations

import json
import resource
import time

import pytest
from streamt.testrun import Assertion, Target
from streamt_kafka import sample_sql
from streamt_kafka.sample_assert import Row, example
from streamt_kafka.sample_decode import Decoder
from streamt_kafka.sample_read import share
from streamt_kafka.sample_sql import SampleEngine, duckdb_sql, evaluate


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
    read = Assertion(0, "custom_sql", {"sql": "SELECT count(*) FROM read_csv('/etc/passwd')", "expect": 0})
    with SampleEngine().table(rows) as con:
        result = evaluate(con, read, rows, Target(kind="model", name="m", topic="t"))
    assert result.status == "error" and result.reason and "SQL error" in result.reason


OPEN = Target(kind="model", name="m", topic="t")
NOT_ONE_SELECT = "the SQL must be one SELECT statement: sample tests only read the sample"


@pytest.mark.parametrize(
    "assertion",
    [
        Assertion(0, "custom_sql", {"sql": "CREATE TABLE kept AS SELECT * FROM {{ model }}; SELECT 1", "expect": 1}),
        Assertion(0, "custom_sql", {"sql": "SELECT 1; CREATE MACRO kept() AS 1", "expect": 1}),
        Assertion(0, "custom_sql", {"sql": "CREATE VIEW kept AS SELECT 1", "expect": 1}),
        Assertion(0, "custom_sql", {"name": "n", "where": "true; CREATE TABLE kept (a INT); SELECT 1 WHERE true"}),
        Assertion(0, "expression", {"sql": "true); CREATE SEQUENCE kept; SELECT 1 WHERE (true"}),
        Assertion(0, "custom_sql", {"sql": "DELETE FROM {{ model }}", "expect": 0}),
        Assertion(0, "custom_sql", {"sql": "SET threads = 8", "expect": 0}),
        Assertion(0, "custom_sql", {"sql": "ATTACH ':memory:' AS kept", "expect": 0}),
    ],
)
def test_a_test_can_leave_nothing_behind_for_the_next_test_on_the_shared_connection(assertion: Assertion) -> None:
    engine = SampleEngine()
    with engine.table([Row(0, 0, None, {"a": 1})]) as con:
        result = evaluate(con, assertion, [], OPEN)
        assert result.status == "error" and result.reason == NOT_ONE_SELECT
    rows = [Row(0, i, None, {"b": i}) for i in range(3)]
    with engine.table(rows) as con:
        assert con.execute("SELECT database_name, schema_name, table_name FROM duckdb_tables()").fetchall() == [
            ("memory", "main", "sample")
        ]
        assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM duckdb_sequences()").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM duckdb_functions() WHERE function_name = 'kept'").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM duckdb_databases() WHERE NOT internal").fetchone() == (1,)
        assert con.execute("SELECT current_setting('threads')").fetchone() == (1,)
        assert evaluate(con, _custom("SELECT count(*) FROM {{ model }}", 3), rows, OPEN).status == "passed"


def test_each_test_sees_only_its_own_sample_and_columns() -> None:
    engine = SampleEngine()
    first = [Row(0, i, None, {"a": i, "secret": "s"}) for i in range(5)]
    with engine.table(first) as con:
        assert evaluate(con, _custom("SELECT count(*) FROM {{ model }}", 5), first, OPEN).status == "passed"
    second = [Row(1, 9, None, {"b": "x"})]
    with engine.table(second) as con:
        assert evaluate(con, _custom("SELECT count(*) FROM {{ model }}", 1), second, OPEN).status == "passed"
        gone = evaluate(con, _custom("SELECT count(secret) FROM {{ model }}", 0), second, OPEN)
        assert gone.status == "error" and gone.reason and "secret" in gone.reason
        assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == (1,)
    with engine.table(second) as con:
        pass
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == (0,)  # dropped after the last test
    engine.close()


def test_a_query_that_fails_drops_its_table_and_the_connection_serves_the_next_test() -> None:
    engine = SampleEngine()
    rows = [Row(0, 0, None, {"a": 1})]
    with pytest.raises(RuntimeError), engine.table(rows):
        raise RuntimeError("an assertion crashed")
    with engine.table(rows) as con:
        assert evaluate(con, _custom("SELECT count(*) FROM {{ model }}", 1), rows, OPEN).status == "passed"


def test_framed_values_without_a_registry_are_undecodable_not_errors() -> None:
    def lookup(schema_id: int) -> None:
        raise LookupError(f"record framed with schema id {schema_id}, but runtime.schema_registry is not set")

    decoded = Decoder(lookup).decode(b"\x00\x00\x00\x00\x07payload")
    assert (
        decoded.row is None
        and decoded.problem == "record framed with schema id 7, but runtime.schema_registry is not set"
    )


PII = "alice.SENSITIVE@pii.example"
CLASSIFIED = Target(kind="model", name="m", topic="t", sensitive=frozenset({"email"}))


def _custom(sql: str, expect: object = 0) -> Assertion:
    return Assertion(0, "custom_sql", {"sql": sql, "expect": expect})


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT email FROM {{ model }}",
        "SELECT upper(email) FROM {{ model }}",
        "SELECT CAST(email AS INTEGER) FROM {{ model }}",  # a conversion error quotes the value
        "SELECT error(email) FROM {{ model }}",
    ],
)
def test_a_custom_sql_reason_never_shows_a_sensitive_value(sql: str) -> None:
    rows = [Row(0, 0, None, {"email": PII, "amount": 3})]
    with SampleEngine().table(rows) as con:
        result = evaluate(con, _custom(sql), rows, CLASSIFIED)
    assert result.status in ("failed", "error") and result.reason
    assert PII.lower() not in result.reason.lower()


def test_without_sensitive_columns_the_returned_value_is_shown_and_bounded() -> None:
    rows = [Row(0, 0, None, {"amount": 3})]
    with SampleEngine().table(rows) as con:
        result = evaluate(con, _custom("SELECT repeat('x', 100000)"), rows, Target(kind="model", name="m", topic="t"))
    assert result.status == "failed" and result.reason and result.reason.startswith("returned 'xxx")
    assert len(result.reason) < 400 and "(100000 long)" in result.reason


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("SELECT count(*) FROM range(1000000000000)", "did not finish within 1 s"),
        ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t", "within 1 s"),
        ("SELECT string_agg(repeat('x', 1000000), '') FROM range(5000)", "more than the 256MB"),
        ("SELECT repeat('x', 1000000000)", "more than the 256MB"),  # allocated outside DuckDB's memory_limit
    ],
)
def test_unbounded_sql_ends_as_that_assertions_error_and_the_next_one_runs(
    sql: str, reason: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sample_sql, "QUERY_SECONDS", 1.0)
    rows = [Row(0, 0, None, {"amount": 3})]
    engine = SampleEngine()
    target = Target(kind="model", name="m", topic="t")
    with engine.table(rows) as con:
        started, peak = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = evaluate(con, _custom(sql), rows, target)
        assert result.status == "error" and result.reason and reason in result.reason, result.reason
        assert time.monotonic() - started < 10
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak
        assert grown < 512 * 1024, f"the peak grew by {grown} KiB"  # never a GB for one query
        assert evaluate(con, _custom("SELECT count(*) FROM {{ model }}", 1), rows, target).status == "passed"
    with engine.table(rows * 2) as con:  # and so does the next test, on the run's one connection
        assert evaluate(con, _custom("SELECT count(*) FROM {{ model }}", 2), rows, target).status == "passed"


def _framed(schema: dict, payload: bytes) -> tuple[Decoder, bytes]:
    decoder = Decoder(lambda schema_id: ("AVRO", json.dumps(schema)))
    return decoder, b"\x00\x00\x00\x00\x01" + payload


def _zigzag(value: int) -> bytes:
    number, out = (value << 1) ^ (value >> 63), bytearray()
    while True:
        byte, number = number & 0x7F, number >> 7
        out.append(byte | (0x80 if number else 0))
        if not number:
            return bytes(out)


def test_an_avro_block_count_of_2_to_the_40_is_refused_before_any_item_is_read() -> None:
    schema = {"type": "record", "name": "r", "fields": [{"name": "xs", "type": {"type": "array", "items": "null"}}]}
    decoder, value = _framed(schema, _zigzag(2**40) + b"\x00")
    assert len(value) <= 13  # a handful of bytes announce a trillion items
    started, peak = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    decoded = decoder.decode(value)
    assert decoded.row is None and decoded.problem == "record out of bounds: more than 100000 array or map items"
    assert time.monotonic() - started < 1 and resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 64 * 1024


def test_valid_avro_with_unions_maps_enums_fixed_and_named_references_still_decodes() -> None:
    import io

    from fastavro import parse_schema, schemaless_writer

    schema = {
        "type": "record", "name": "Order", "namespace": "shop",
        "fields": [
            {"name": "id", "type": "string"},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
            {"name": "tags", "type": {"type": "map", "values": {"type": "array", "items": "long"}}},
            {"name": "state", "type": {"type": "enum", "name": "State", "symbols": ["NEW", "PAID"]}},
            {"name": "next", "type": ["null", "State"]},
            {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 4}},
            {"name": "line", "type": ["null", {"type": "record", "name": "Line", "fields": [
                {"name": "qty", "type": "int"}, {"name": "price", "type": ["null", "double"]}]}]},
        ],
    }  # fmt: skip
    record = {
        "id": "o1", "amount": __import__("decimal").Decimal("12.50"), "tags": {"a": [1, 2], "b": []},
        "state": "PAID", "next": "NEW", "hash": b"abcd", "line": {"qty": 3, "price": 1.5},
    }  # fmt: skip
    buffer = io.BytesIO()
    schemaless_writer(buffer, parse_schema(json.loads(json.dumps(schema))), record)
    decoder, value = _framed(schema, buffer.getvalue())
    decoded = decoder.decode(value)
    assert decoded.problem is None and decoded.row == record


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "nested deeper than 64 levels"),
        (b'{"a": "\\ud800"}', "a string holds a lone surrogate"),
        (json.dumps({f"k{i}": i for i in range(20_000)}).encode(), "more than 1000 fields"),
        (json.dumps({"xs": list(range(200_000))}).encode(), "more than 100000 items"),
        (b'{"a": "' + b"x" * (5 * 1024 * 1024) + b'"}', "larger than 4 MiB"),
    ],
)
def test_a_json_record_out_of_bounds_is_undecodable_with_its_reason(value: bytes, problem: str) -> None:
    decoded = Decoder(lambda schema_id: None).decode(value)
    assert decoded.row is None and decoded.problem == f"record out of bounds: {problem}"


def test_fields_differing_only_in_case_are_a_reason_not_a_crash() -> None:
    rows = [Row(0, 0, None, {"Email": "a"}), Row(0, 1, None, {"email": "b"})]
    with pytest.raises(sample_sql.SampleTableError, match="'Email' and 'email' differ only in case"):
        SampleEngine().table(rows).__enter__()


def test_an_integer_beyond_64_bits_makes_its_column_text_not_a_crash() -> None:
    rows = [Row(0, 0, None, {"big": 2**70, "n": 1}), Row(0, 1, None, {"big": 1, "n": 2.5})]
    with SampleEngine().table(rows) as con:
        assert con.execute("SELECT typeof(big), big, typeof(n) FROM sample ORDER BY _offset").fetchall() == [
            ("VARCHAR", str(2**70), "DOUBLE"),
            ("VARCHAR", "1", "DOUBLE"),
        ]
        assert evaluate(con, _custom("SELECT count(*) FROM {{ model }} WHERE n > 2", 1), rows, OPEN).status == "passed"
