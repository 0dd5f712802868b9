from __future__ import annotations

from collections.abc import Callable

import pytest
from streamt_flink import ddl, options


def test_create_table_quotes_identifiers_and_sorts_options() -> None:
    sql = ddl.create_table(
        "orders_v1",
        [ddl.TableColumn("id", "string", not_null=True), ddl.TableColumn("value", "DECIMAL(10, 2)")],
        {"topic": "orders.v1", "connector": "kafka"},
    )
    assert sql == (
        "CREATE TABLE IF NOT EXISTS `orders_v1` (\n"
        "  `id` STRING NOT NULL,\n"
        "  `value` DECIMAL(10, 2)\n"
        ") WITH (\n"
        "  'connector' = 'kafka',\n"
        "  'topic' = 'orders.v1'\n"
        ")"
    )


def test_watermark_and_primary_key_follow_the_columns() -> None:
    sql = ddl.create_table(
        "t",
        [ddl.TableColumn("k"), ddl.TableColumn("ts", "TIMESTAMP(3)"), ddl.TableColumn("pt", computed="PROCTIME()")],
        {"connector": "upsert-kafka"},
        ddl.Watermark("ts", 10_000),
        ("k",),
    )
    assert "  `pt` AS PROCTIME(),\n  WATERMARK FOR `ts` AS `ts` - INTERVAL '10' SECOND,\n" in sql
    assert "  PRIMARY KEY (`k`) NOT ENFORCED\n) WITH" in sql


@pytest.mark.parametrize(
    ("ms", "expected"),
    [(0, "`ts`"), (5000, "`ts` - INTERVAL '5' SECOND"), (1500, "`ts` - INTERVAL '1.500' SECOND")],
)
def test_watermark_expression(ms: int, expected: str) -> None:
    assert ddl.watermark_expression(ddl.Watermark("ts", ms)) == expected


def test_quoting_escapes_embedded_quotes() -> None:
    assert ddl.quote_ident("we`ird") == "`we``ird`"
    assert ddl.quote_string("it's") == "'it''s'"
    assert ddl.set_statement("pipeline.name", "a'b") == "SET 'pipeline.name' = 'a''b'"


@pytest.mark.parametrize("bad", ["STRING); DROP TABLE x; --", "BIGINT'", ""])
def test_type_names_cannot_carry_sql(bad: str) -> None:
    if not bad:
        assert ddl.normalize_type(bad) == "STRING"
        return
    with pytest.raises(ValueError):
        ddl.normalize_type(bad)


def test_script_is_one_statement_per_semicolon(split_sql: Callable[[str], list[str]]) -> None:
    statements = [ddl.set_statement("a", "1"), ddl.insert_into("t", "SELECT ';' AS x FROM s")]
    assert split_sql(ddl.script(statements)) == statements


def test_topic_table_names() -> None:
    assert ddl.table_name_for_topic("payments.card-events.v1") == "payments_card_events_v1"


def test_sasl_options_keep_the_password_placeholder() -> None:
    connection = options.KafkaConnection("b:9092", "sasl_ssl", "SCRAM-SHA-512", "svc", "${KAFKA_PASSWORD}")
    opts = options.source_options(connection, "t", "g")
    assert opts["properties.security.protocol"] == "SASL_SSL"
    assert opts["properties.sasl.jaas.config"] == (
        "org.apache.flink.kafka.shaded.org.apache.kafka.common.security.scram.ScramLoginModule required "
        'username="svc" password="${KAFKA_PASSWORD}";'
    )
    assert opts["scan.startup.mode"] == "earliest-offset"
    assert opts["properties.group.id"] == "g"


def test_upsert_sink_options() -> None:
    opts = options.upsert_sink_options(options.KafkaConnection("b:9092"), "t")
    assert opts == {
        "connector": "upsert-kafka",
        "topic": "t",
        "key.format": "json",
        "value.format": "json",
        "properties.bootstrap.servers": "b:9092",
    }
