from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from shared_material import SHARED
from streamt.errors import StreamtError
from streamt.project.loader import load_project
from streamt_flink import plugin
from streamt_flink.continuous import compile_test
from streamt_flink.job import compile_model
from streamt_flink.settings import FlinkConfig, SourceFormat, flink_settings, source_format
from streamt_flink.validation import check, sql_gateway_url
from streamt_testing import compile_with

EXAMPLES = SHARED / "spec" / "examples"


def _payments() -> Any:
    return load_project(EXAMPLES / "payments-pipeline", process_env={})


def _artifacts(project: Any) -> dict[str, Any]:
    out = {}
    for declaration in (*project.models, *project.tests):
        for artifact in compile_with(plugin, project, declaration, project.env):
            if artifact.kind != "topic":  # a test's failures topic: see test_test_jobs_depend_on_...
                out[artifact.identity] = artifact
    return out


def _project(streamt_project: Callable[..., Path], models: list[dict[str, Any]], **runtime: Any) -> Any:
    columns = [{"name": n, "type": t} for n, t in (("k", "STRING"), ("v", "BIGINT"), ("ts", "TIMESTAMP(3)"))]
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "localhost:9092", "bootstrap_servers_internal": "kafka:29092"},
                    "flink": {"clusters": {"local": {"rest_url": "http://f:8081"}}},
                    **runtime,
                },
                "sources": [
                    {"name": "events", "topic": "app.events.v1", "columns": columns, "event_time": {"column": "ts"}}
                ],
                "models": models,
            }
        }
    )
    return load_project(root, process_env={"KAFKA_PASSWORD": "s3cr3t-value"})


def test_payments_example_compiles_the_expected_jobs(split_sql: Callable[[str], list[str]]) -> None:
    artifacts = _artifacts(_payments())
    assert sorted(artifacts) == ["merchant_totals_1m", "payments_clean", "test_merchant_totals_monitor"]
    for artifact in artifacts.values():
        # The .sql file is exactly the statement list, one statement per ';'.
        assert split_sql(artifact.files[".sql"]) == artifact.spec["statements"]
    clean = artifacts["payments_clean"]
    assert clean.kind == "flink_job" and clean.depends_on == (("topic", "payments.clean.v1"),)
    assert clean.spec["sink"]["connector"] == "kafka"
    assert clean.spec["masks"] == [{"column": "card_pan", "method": "partial"}]
    assert "END AS `card_pan`" in clean.files[".sql"]
    assert "'properties.bootstrap.servers' = 'kafka:29092'" in clean.files[".sql"]
    totals = artifacts["merchant_totals_1m"]
    # The upstream model's event time is carried into the table the windowed job reads.
    assert "WATERMARK FOR `event_time` AS `event_time` - INTERVAL '10' SECOND" in totals.files[".sql"]
    assert totals.spec["settings"] == {
        "execution.checkpointing.externalized-checkpoint-retention": "RETAIN_ON_CANCELLATION",
        "execution.checkpointing.interval": "30000 ms",
        "parallelism.default": "4",
        "pipeline.name": "card-payments/default/merchant_totals_1m",
        "table.exec.state.ttl": "3600000 ms",
    }
    monitor = artifacts["test_merchant_totals_monitor"]
    assert monitor.kind == "test_job"
    assert monitor.spec["failures_topic"] == "_streamt_test_failures.card-payments.default.merchant_totals_monitor"
    assert "WHERE `payment_count` < 1" in monitor.files[".sql"]


def test_compilation_is_deterministic() -> None:
    first = {k: (a.checksum, a.files) for k, a in _artifacts(_payments()).items()}
    second = {k: (a.checksum, a.files) for k, a in _artifacts(_payments()).items()}
    assert first == second


def test_non_windowed_group_by_writes_an_upsert_table(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project,
        [
            {
                "name": "totals",
                "sql": 'SELECT k, SUM(v) AS total FROM {{ source("events") }} GROUP BY k',
                "advanced": {"flink": {"state_ttl_ms": 60000}},
            }
        ],
    )
    artifact = compile_model(project, project.model("totals"))
    sql = artifact.files[".sql"]
    assert artifact.spec["sink"]["connector"] == "upsert-kafka"
    assert "PRIMARY KEY (`k`) NOT ENFORCED" in sql
    assert "'connector' = 'upsert-kafka'" in sql and "'key.format' = 'json'" in sql


def test_group_keys_must_be_selected(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project, [{"name": "totals", "sql": 'SELECT SUM(v) AS total FROM {{ source("events") }} GROUP BY k'}]
    )
    with pytest.raises(StreamtError) as raised:
        compile_model(project, project.model("totals"))
    assert raised.value.diagnostics[0].code.code == "E501_PARSE_ERROR"


def test_sasl_password_never_reaches_the_sql(streamt_project: Callable[..., Path]) -> None:
    kafka = {
        "bootstrap_servers": "localhost:9092",
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "PLAIN",
        "sasl_username": "svc",
        "sasl_password": "${KAFKA_PASSWORD}",
    }
    project = _project(
        streamt_project,
        [{"name": "clean", "materialized": "flink", "sql": 'SELECT k, v FROM {{ source("events") }} WHERE v > 0'}],
        kafka=kafka,
    )
    artifact = compile_model(project, project.model("clean"))
    assert project.runtime.kafka.sasl_password == "s3cr3t-value"
    assert "s3cr3t-value" not in artifact.files[".sql"] and "s3cr3t-value" not in str(artifact.spec)
    assert 'password="${KAFKA_PASSWORD}";' in artifact.files[".sql"]


_SASL = {
    "bootstrap_servers": "localhost:9092",
    "security_protocol": "SASL_SSL",
    "sasl_mechanism": "PLAIN",
    "sasl_username": "svc",
}
_CLEAN = [{"name": "clean", "materialized": "flink", "sql": 'SELECT k, v FROM {{ source("events") }} WHERE v > 0'}]


@pytest.mark.parametrize(
    ("written", "carried"),
    [
        ("${KAFKA_PASSWORD:-fallback-s3cr3t}", "${KAFKA_PASSWORD}"),  # the fallback is literal file text
        ("s3cr3t-value", "${STREAMT_KAFKA_SASL_PASSWORD}"),  # a literal secret is never copied
        ("pre-${KAFKA_PASSWORD}", "${STREAMT_KAFKA_SASL_PASSWORD}"),  # nor is text around a placeholder
    ],
)
def test_only_a_whole_placeholder_is_carried(streamt_project: Callable[..., Path], written: str, carried: str) -> None:
    project = _project(streamt_project, _CLEAN, kafka={**_SASL, "sasl_password": written})
    sql = compile_model(project, project.model("clean")).files[".sql"]
    assert f'password="{carried}";' in sql
    assert "s3cr3t" not in sql and "pre-" not in sql


def test_the_placeholder_comes_from_the_loaded_project_not_the_file(streamt_project: Callable[..., Path]) -> None:
    files = {
        "stream_project.yml": {"project": {"name": "p"}},
        "environments/prod.yml": {
            "environment": {"name": "prod"},
            "runtime": {"kafka": {**_SASL, "sasl_password": "${PROD_PW}"}},
        },
        "models/m.yml": {
            "sources": [{"name": "events", "topic": "app.events.v1", "columns": [{"name": "k", "type": "STRING"}]}],
            "models": [{"name": "copy", "materialized": "flink", "sql": 'SELECT k FROM {{ source("events") }}'}],
        },
    }
    root = streamt_project(files)
    project = load_project(root, "prod", process_env={"PROD_PW": "s3cr3t-value"})
    # The environment file changes (or goes) after loading: compile uses what was loaded.
    (root / "environments" / "prod.yml").unlink()
    sql = compile_model(project, project.model("copy")).files[".sql"]
    assert 'password="${PROD_PW}";' in sql and "s3cr3t-value" not in sql


def test_topic_model_with_sql_gets_a_processor_job(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project, [{"name": "copy", "materialized": "topic", "sql": 'SELECT * FROM {{ source("events") }}'}]
    )
    [artifact] = compile_with(plugin, project, project.model("copy"))
    assert artifact.identity == "copy_processor"
    assert "INSERT INTO `copy_sink`\nSELECT * FROM `app_events_v1`" in artifact.files[".sql"]


def test_validation_codes(streamt_project: Callable[..., Path]) -> None:
    project = _project(
        streamt_project,
        [
            {"name": "no_ttl", "sql": 'SELECT k, COUNT(*) AS n FROM {{ source("events") }} GROUP BY k'},
            {
                "name": "bad_ttl",
                "sql": 'SELECT k, COUNT(*) AS n FROM {{ source("events") }} GROUP BY k',
                "advanced": {"flink": {"state_ttl_ms": 0}},
            },
            {
                "name": "short_ttl",
                "sql": 'SELECT k, COUNT(*) AS n FROM {{ source("events") }} GROUP BY k',
                "advanced": {"flink": {"state_ttl_ms": 10}},
            },
            {
                "name": "ml",
                "materialized": "flink",
                "sql": 'SELECT * FROM ML_PREDICT(TABLE {{ source("events") }}, DESCRIPTOR(v))',
            },
        ],
    )
    found = {(getattr(d.code, "code", d.code), d.message.split("'")[1]) for d in check(project)}
    assert found == {
        ("W101_STATE_TTL_RECOMMENDED", "no_ttl"),
        ("E301_INVALID_STATE_TTL", "bad_ttl"),
        ("STATE_TTL_TOO_SHORT", "short_ttl"),
        ("E203_CONFLUENT_FLINK_REQUIRED", "ml"),
        # GROUP BY k into an upsert sink, and the source does not declare k required.
        *(("W124_UPSERT_KEY_NULLABLE", name) for name in ("no_ttl", "bad_ttl", "short_ttl")),
    }


def test_a_short_ttl_is_noticed_on_any_model_that_writes_flink_settings(streamt_project: Callable[..., Path]) -> None:
    # A model without SQL runs no job, but the settings it writes are still this plugin's to check.
    project = _project(streamt_project, [{"name": "short", "advanced": {"flink": {"state_ttl_ms": 500}}}])
    notices = [f for f in check(project) if getattr(f, "code", None) == "STATE_TTL_TOO_SHORT"]
    assert [n.message for n in notices] == ["Model 'short': state_ttl_ms 500 is under one second"]
    model = project.model("short")
    assert flink_settings(model) == FlinkConfig(state_ttl_ms=500) and model.materialized == "topic"


def test_a_sources_format_is_this_plugins_section(streamt_project: Callable[..., Path]) -> None:
    root = streamt_project(
        {
            "stream_project.yml": {
                "apiVersion": "streamt.dev/v1alpha1",
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
                "sources": [{"name": "raw", "topic": "raw.v1", "format": {"ignore_parse_errors": True}}],
            }
        }
    )
    (source,) = load_project(root, process_env={}).sources
    assert source_format(source) == SourceFormat(ignore_parse_errors=True)
    typo = root / "stream_project.yml"
    typo.write_text(typo.read_text().replace("ignore_parse_errors", "ignore_parse_error"))
    with pytest.raises(StreamtError) as caught:
        load_project(root, process_env={})
    (error,) = caught.value.diagnostics
    assert "Unknown key 'sources[0].format.ignore_parse_error'" in error.message and "ignore_parse_errors" in (
        error.suggestion or ""
    )


def test_ttl_checks_cover_topic_models_run_by_flink(streamt_project: Callable[..., Path]) -> None:
    # A bare SELECT is a `topic` model (dsl.md section 9.2) whose `<model>_processor` job is Flink's.
    project = _project(
        streamt_project,
        [
            {
                "name": "zero",
                "sql": 'SELECT * FROM {{ source("events") }}',
                "advanced": {"flink": {"state_ttl_ms": 0}},
            },
            {"name": "stateless", "sql": 'SELECT k FROM {{ source("events") }} WHERE v > 1'},
        ],
    )
    assert project.model("zero").materialized == "topic"
    found = {(d.code.code, d.message.split("'")[1]) for d in check(project)}
    assert found == {("E301_INVALID_STATE_TTL", "zero")}


def test_windowed_query_needs_no_ttl() -> None:
    assert check(_payments()) == []


def test_sql_gateway_url_is_required_to_submit(streamt_project: Callable[..., Path]) -> None:
    project = _project(streamt_project, [])
    with pytest.raises(StreamtError) as raised:
        sql_gateway_url(project, "local")
    assert raised.value.diagnostics[0].code.code == "E206_SQL_GATEWAY_NOT_CONFIGURED"
    assert sql_gateway_url(_payments(), "local") == "http://localhost:8084"


def test_continuous_test_without_row_level_assertions_compiles_nothing(
    streamt_project: Callable[..., Path],
) -> None:
    root = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "p"},
                "runtime": {"kafka": {"bootstrap_servers": "k:9092"}, "flink": {"clusters": {"c": {}}}},
                "sources": [{"name": "s", "topic": "t", "columns": [{"name": "a", "type": "BIGINT"}]}],
                "tests": [
                    {"name": "thr", "model": "s", "type": "continuous", "assertions": [{"throughput": {}}]},
                    {
                        "name": "vals",
                        "model": "s",
                        "type": "continuous",
                        "assertions": [
                            {"accepted_values": {"column": "a", "values": [1, 2]}},
                            {"accepted_types": {"a": "long"}},
                        ],
                    },
                ],
            }
        }
    )
    project = load_project(root, process_env={})
    assert compile_test(project, project.test("thr")) is None
    artifact = compile_test(project, project.test("vals"))
    assert artifact is not None
    assert "WHERE `a` IS NOT NULL AND `a` NOT IN (1, 2)" in artifact.files[".sql"]
    assert artifact.spec["skipped"] == ["accepted_types"]


def test_test_jobs_depend_on_the_tested_topic_and_declare_their_own_failures_topic() -> None:
    project = _payments()
    failures = "_streamt_test_failures.card-payments.default.merchant_totals_monitor"
    monitor = _artifacts(project)["test_merchant_totals_monitor"]
    assert monitor.depends_on == (("topic", "payments.merchant-totals.v1"), ("topic", failures))
    assert f"'topic' = '{failures}'" in monitor.files[".sql"]
    (topic,) = [
        a for a in compile_with(plugin, project, project.test("merchant_totals_monitor"), "") if a.kind == "topic"
    ]
    assert (topic.identity, topic.ownership, topic.provider) == (failures, "managed", "streamt-kafka")
    assert topic.spec["partitions"] == 1 and topic.spec["name"] == failures
