"""Sample tests against the real broker and registry: known good and bad records, exact counts per kind.

Each test produces into its own uniquely named topics (and subject) and deletes them afterwards.
"""

from __future__ import annotations

import io
import json
import struct
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from streamt_testing import run_cli

pytestmark = [pytest.mark.kafka, pytest.mark.schema_registry]

SECRET_EMAIL = "s3ntinel-mail@example.com"
COLUMNS = [
    {"name": "order_id", "type": "STRING", "required": True},
    {"name": "amount", "type": "BIGINT"},
    {"name": "status", "type": "STRING"},
    {"name": "email", "type": "STRING", "classification": "sensitive"},
]
ASSERTIONS = [
    {"not_null": {"columns": ["order_id"]}},
    {"accepted_values": {"column": "status", "values": ["new", "paid"]}},
    {"range": {"column": "amount", "min": 0, "max": 1000}},
    {"unique_key": {"key": "order_id"}},
    {"expression": {"sql": "amount >= 0", "description": "no negative amounts"}},
    {"custom_sql": {"name": "weird_status", "where": "`status` = 'weird'", "detail_column": "email"}},
    {"custom_sql": {"sql": "SELECT count(*) FROM {{ model }}", "expect": 20}},
    {"accepted_values": {"column": "email", "values": ["nobody"]}},
    {"accepted_types": {"amount": "long"}},  # "–" for sample tests
]


@pytest.fixture
def topics(kafka_bootstrap: str) -> Iterator[list[str]]:
    from kafka.admin import KafkaAdminClient, NewTopic

    made: list[str] = []
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)

    def make(partitions: int) -> str:
        name = f"t15-sample-{uuid.uuid4().hex[:10]}"
        admin.create_topics([NewTopic(name, partitions, 1)])
        made.append(name)
        return name

    yield make  # type: ignore[misc]
    if made:
        admin.delete_topics(made)
    admin.close()


def produce(bootstrap: str, topic: str, records: list[tuple[int, bytes | None, bytes]]) -> None:
    from kafka import KafkaProducer

    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for partition, key, value in records:
        producer.send(topic, value=value, key=key, partition=partition)
    producer.flush()
    producer.close()


def order(i: int) -> dict[str, Any]:
    return {"order_id": f"o{i}", "amount": i * 10, "status": "new" if i % 2 else "paid", "email": SECRET_EMAIL}


def json_orders() -> list[dict[str, Any]]:
    rows = [order(i) for i in range(20)]
    rows[3]["order_id"] = None  # not_null: 1
    rows[5]["status"] = "weird"  # accepted_values: 1, custom_sql where: 1
    rows[7]["amount"] = -5  # range: 1 (low), expression: 1
    rows[9]["amount"] = 10_000  # range: 1 (high)
    rows[11]["order_id"] = "o10"  # unique_key: 1
    return rows


def project(streamt_project, bootstrap: str, registry: str | None, topic: str, tests: list[dict[str, Any]]) -> Any:
    runtime: dict[str, Any] = {"kafka": {"bootstrap_servers": bootstrap}}
    if registry:
        runtime["schema_registry"] = {"url": registry}
    return streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "t15"},
                "runtime": runtime,
                "sources": [{"name": "orders", "topic": topic, "columns": COLUMNS}],
                "tests": tests,
            }
        }
    )


def results(outcome) -> dict[str, dict[str, Any]]:
    return {t["name"]: t for t in outcome.data["tests"]}


def counts(test: dict[str, Any]) -> list[tuple[str, str, int | None, int | None]]:
    return [(a["description"], a["status"], a["checked"], a["failed"]) for a in test["assertions"]]


def test_json_records_give_exact_counts_per_assertion_kind(streamt_project, topics, kafka_bootstrap) -> None:
    topic = topics(3)
    rows = json_orders()
    produce(kafka_bootstrap, topic, [(i % 3, f"k{i}".encode(), json.dumps(r).encode()) for i, r in enumerate(rows)])
    tests = [
        {"name": "orders_quality", "model": "orders", "type": "sample", "assertions": ASSERTIONS},
        {"name": "orders_small", "model": "orders", "type": "sample", "sample_size": 6, "assertions": ASSERTIONS[:1]},
    ]
    outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, topic, tests))
    assert outcome.exit_code == 1, outcome.envelope
    quality = results(outcome)["orders_quality"]
    assert (quality["status"], quality["messages"]) == ("failed", 20)
    assert counts(quality) == [
        ("not_null(order_id)", "failed", 20, 1),
        ("accepted_values(status)", "failed", 20, 1),
        ("range(amount)", "failed", 20, 2),
        ("unique_key(order_id)", "failed", 20, 1),
        ("expression(no negative amounts)", "failed", 20, 1),
        ("custom_sql(weird_status)", "failed", 20, 1),
        ("custom_sql", "passed", 20, 0),
        ("accepted_values(email)", "failed", 20, 20),
        ("accepted_types(amount)", "skipped", None, None),
    ]
    by_kind = quality["assertions"]
    # Examples locate the record (partition, offset, key) and show values of ordinary columns only.
    assert by_kind[0]["examples"] == [{"partition": 0, "offset": 1, "key": "k3", "column": "order_id"}]
    assert by_kind[1]["examples"] == [{"partition": 2, "offset": 1, "key": "k5", "column": "status", "value": "weird"}]
    assert sorted(e["value"] for e in by_kind[2]["examples"]) == [-5, 10_000]
    assert len(by_kind[7]["examples"]) == 5  # at most five of the twenty
    assert SECRET_EMAIL not in json.dumps(outcome.envelope)
    assert by_kind[8]["reason"] == "accepted_types is not evaluated by sample tests (dsl.md section 11)"
    small = results(outcome)["orders_small"]
    assert small["messages"] == 6 and small["assertions"][0]["checked"] == 6
    assert quality["details"] == {"topic": topic, "partitions": 3, "complete": True}


def test_all_good_records_pass_and_exit_0(streamt_project, topics, kafka_bootstrap) -> None:
    topic = topics(2)
    produce(kafka_bootstrap, topic, [(i % 2, None, json.dumps(order(i)).encode()) for i in range(8)])
    tests = [{"name": "ok", "model": "orders", "type": "sample", "assertions": ASSERTIONS[:6]}]
    outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, topic, tests))
    assert outcome.ok and outcome.exit_code == 0, outcome.envelope
    assert results(outcome)["ok"]["status"] == "passed" and results(outcome)["ok"]["messages"] == 8
    # Progress on stderr: the test's start and finish, timestamped (stdout stays the one envelope).
    progress = [line.split(" ", 1)[1] for line in outcome.stderr.splitlines()]
    assert progress[0] == "start test sample ok" and progress[1].startswith("passed test sample ok ("), progress


def test_sample_size_keeps_the_most_recent_records_of_every_partition(streamt_project, topics, kafka_bootstrap) -> None:
    topic = topics(2)
    # 10 old bad records, then 4 recent good ones per partition: a sample of 8 sees only good ones.
    bad = [(p, None, json.dumps({**order(1), "order_id": None}).encode()) for p in (0, 1) for _ in range(5)]
    good = [(p, None, json.dumps(order(i)).encode()) for p in (0, 1) for i in range(4)]
    produce(kafka_bootstrap, topic, bad + good)
    tests = [{"name": "recent", "model": "orders", "type": "sample", "sample_size": 8, "assertions": ASSERTIONS[:1]}]
    outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, topic, tests))
    assert outcome.ok, outcome.envelope
    assert counts(results(outcome)["recent"]) == [("not_null(order_id)", "passed", 8, 0)]


def test_avro_records_are_decoded_through_the_registry(
    streamt_project, topics, kafka_bootstrap, schema_registry_url
) -> None:
    from fastavro import parse_schema, schemaless_writer

    topic = topics(1)
    schema = {
        "type": "record",
        "name": "Order",
        "fields": [
            {"name": "order_id", "type": "string"},
            {"name": "amount", "type": "long"},
            {"name": "status", "type": "string"},
            {"name": "email", "type": ["null", "string"], "default": None},
        ],
    }
    subject = f"{topic}-value"
    response = requests.post(
        f"{schema_registry_url}/subjects/{subject}/versions",
        json={"schema": json.dumps(schema)},
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    schema_id = response.json()["id"]
    parsed = parse_schema(schema)
    values = []
    for i in range(10):
        row = order(i)
        row["amount"] = -1 if i in (2, 4) else row["amount"]
        row["email"] = None if i == 6 else SECRET_EMAIL
        buffer = io.BytesIO()
        schemaless_writer(buffer, parsed, row)
        values.append((0, f"k{i}".encode(), b"\x00" + struct.pack(">I", schema_id) + buffer.getvalue()))
    values.append((0, b"broken", b"\x00" + struct.pack(">I", schema_id) + b"\xff\xff\xff"))  # truncated Avro
    produce(kafka_bootstrap, topic, values)
    tests = [
        {
            "name": "avro_quality",
            "model": "orders",
            "type": "sample",
            "assertions": [
                {"range": {"column": "amount", "min": 0}},
                {"not_null": {"columns": ["email"]}},
                {"expression": {"sql": "amount >= 0"}},
            ],
        }
    ]
    try:
        outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, schema_registry_url, topic, tests))
    finally:
        for suffix in ("", "?permanent=true"):
            requests.delete(f"{schema_registry_url}/subjects/{subject}{suffix}", timeout=10)
    test = results(outcome)["avro_quality"]
    assert test["messages"] == 11
    assert counts(test) == [
        ("decode", "failed", 11, 1),
        ("range(amount)", "failed", 10, 2),
        ("not_null(email)", "failed", 10, 1),
        ("expression", "failed", 10, 2),
    ]
    assert test["assertions"][0]["examples"] == [
        {"partition": 0, "offset": 10, "key": "broken", "problem": f"Avro payload does not match schema id {schema_id}"}
    ]
    assert SECRET_EMAIL not in json.dumps(outcome.envelope)


def test_undecodable_records_fail_the_test_by_offset(streamt_project, topics, kafka_bootstrap) -> None:
    topic = topics(1)
    produce(
        kafka_bootstrap, topic, [(0, None, b"not json"), (0, None, b"[1, 2]"), (0, None, json.dumps(order(1)).encode())]
    )
    tests = [{"name": "mixed", "model": "orders", "type": "sample", "assertions": ASSERTIONS[:1]}]
    outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, topic, tests))
    assert outcome.exit_code == 1
    test = results(outcome)["mixed"]
    assert counts(test) == [("decode", "failed", 3, 2), ("not_null(order_id)", "passed", 1, 0)]
    assert [e["problem"] for e in test["assertions"][0]["examples"]] == [
        "not JSON and not registry-framed",
        "JSON value is not an object",
    ]


def test_missing_topic_missing_column_and_bad_sql_are_per_test_errors(streamt_project, topics, kafka_bootstrap) -> None:
    topic = topics(1)
    produce(kafka_bootstrap, topic, [(0, None, json.dumps(order(i)).encode()) for i in range(3)])
    tests = [
        {"name": "columns", "model": "orders", "type": "sample", "assertions": [
            {"range": {"column": "nope", "min": 0}},
            {"expression": {"sql": "nope > 0"}},
            {"custom_sql": {"sql": "SELEC broken", "expect": 0}},
        ]},
    ]  # fmt: skip
    outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, topic, tests))
    assert outcome.exit_code == 1
    test = results(outcome)["columns"]
    assert test["status"] == "error"
    reasons = [a["reason"] for a in test["assertions"]]
    assert reasons[0] == "column 'nope' is in no record of the sample"
    assert reasons[1].startswith("SQL error: Binder Error") and "nope" in reasons[1]
    assert reasons[2].startswith("SQL error: Parser Error")

    absent = f"t15-absent-{uuid.uuid4().hex[:8]}"
    outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, absent, tests[:1]))
    assert outcome.exit_code == 1
    assert {a["reason"] for a in results(outcome)["columns"]["assertions"]} == {f"topic {absent} does not exist"}


def test_an_empty_topic_skips_rather_than_passes(streamt_project, topics, kafka_bootstrap) -> None:
    topic = topics(2)
    tests = [{"name": "empty", "model": "orders", "type": "sample", "assertions": ASSERTIONS[:1]}]
    outcome = run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, topic, tests))
    assert outcome.ok
    test = results(outcome)["empty"]
    assert (test["status"], test["messages"]) == ("skipped", 0)
    assert test["assertions"][0]["reason"] == "the topic has no records to sample"


def test_the_sample_read_commits_nothing_and_joins_no_group(streamt_project, topics, kafka_bootstrap) -> None:
    from kafka.admin import KafkaAdminClient

    topic = topics(1)
    produce(kafka_bootstrap, topic, [(0, None, json.dumps(order(1)).encode())])
    admin = KafkaAdminClient(bootstrap_servers=kafka_bootstrap)
    before = {g["group_id"] for g in admin.list_groups()}
    tests = [{"name": "g", "model": "orders", "type": "sample", "assertions": ASSERTIONS[:1]}]
    assert run_cli("test", "-p", project(streamt_project, kafka_bootstrap, None, topic, tests)).ok
    # Other suites may create groups meanwhile: only a "streamt" client's new group would be ours.
    new = {g["group_id"] for g in admin.list_groups()} - before
    assert not {g for g in new if g.startswith("streamt") and "e2eobserve" not in g}
    admin.close()


def register(registry: str, subject: str, schema: dict[str, Any], schema_type: str | None = None) -> None:
    body: dict[str, Any] = {"schema": json.dumps(schema)}
    if schema_type:
        body["schemaType"] = schema_type
    response = requests.post(
        f"{registry}/subjects/{subject}/versions",
        json=body,
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
        timeout=10,
    )
    assert response.status_code == 200, response.text


def forget(registry: str, subject: str) -> None:
    for suffix in ("", "?permanent=true"):
        requests.delete(f"{registry}/subjects/{subject}{suffix}", timeout=10)


@pytest.mark.parametrize("fmt", ["avro", "json"])
def test_schema_tests_compare_the_registered_schema(streamt_project, schema_registry_url: str, fmt: str) -> None:
    topic = f"t15-schema-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    if fmt == "avro":
        register(
            schema_registry_url,
            subject,
            {
                "type": "record",
                "name": "Order",
                "fields": [
                    {"name": "order_id", "type": "string"},
                    {"name": "amount", "type": "double"},  # declared BIGINT: a mismatch
                    {"name": "status", "type": ["null", "string"], "default": None},
                ],
            },
        )
    else:
        register(
            schema_registry_url,
            subject,
            {
                "type": "object",
                "properties": {
                    "order_id": {"type": "string"},
                    "amount": {"type": "number"},
                    "status": {"type": "string"},
                },
                "required": ["order_id", "amount"],
            },
            "JSON",
        )
    columns = [
        {"name": "order_id", "type": "STRING", "required": True},
        {"name": "amount", "type": "BIGINT"},
        {"name": "status", "type": "STRING", "required": True},
    ]
    tests = [
        {"name": "registered", "model": "orders", "type": "schema", "assertions": [
            {"not_null": {"columns": ["order_id", "status"]}},
            {"accepted_types": {"types": {"order_id": "string", "amount": "long"}}},
        ]},
    ]  # fmt: skip
    path = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "t15"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "127.0.0.1:1"},
                    "schema_registry": {"url": schema_registry_url},
                },
                "sources": [{"name": "orders", "topic": topic, "columns": columns, "schema": {"format": fmt}}],
                "tests": tests,
            }
        }
    )
    try:
        outcome = run_cli("test", "-p", path)
    finally:
        forget(schema_registry_url, subject)
    test = results(outcome)["registered"]
    assert outcome.exit_code == 1 and test["details"] == {"registry": f"compared with {subject}"}
    not_null, types = test["assertions"]
    assert not_null["examples"] == [{"column": "status", "problem": f"optional in registered subject {subject}"}]
    assert types["examples"] == [{"column": "amount", "problem": f"registered as DOUBLE in {subject}, accepted long"}]

    outcome = run_cli("test", "-p", path)  # the subject is gone now: declared columns alone decide
    assert results(outcome)["registered"]["details"] == {"registry": f"subject {subject} is not registered"}
    assert [a["failed"] for a in results(outcome)["registered"]["assertions"]] == [0, 0]


def test_a_protobuf_subject_is_not_compared_and_says_why(streamt_project, schema_registry_url: str) -> None:
    topic = f"t15-proto-{uuid.uuid4().hex[:8]}"
    subject = f"{topic}-value"
    proto = 'syntax = "proto3";\nmessage Order {\n  string order_id = 1;\n}\n'
    response = requests.post(
        f"{schema_registry_url}/subjects/{subject}/versions",
        json={"schema": proto, "schemaType": "PROTOBUF"},
        headers={"Content-Type": "application/vnd.schemaregistry.v1+json"},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    tests = [
        {"name": "proto", "model": "orders", "type": "schema", "assertions": [{"not_null": {"columns": ["order_id"]}}]}
    ]
    path = streamt_project(
        {
            "stream_project.yml": {
                "project": {"name": "t15"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "127.0.0.1:1"},
                    "schema_registry": {"url": schema_registry_url},
                },
                "sources": [
                    {
                        "name": "orders",
                        "topic": topic,
                        "columns": [{"name": "order_id", "type": "STRING", "required": True}],
                        "schema": {"format": "protobuf"},
                    }
                ],
                "tests": tests,
            }
        }
    )
    try:
        outcome = run_cli("test", "-p", path)
    finally:
        forget(schema_registry_url, subject)
    assert outcome.ok, outcome.envelope
    test = results(outcome)["proto"]
    assert test["details"] == {"registry": f"subject {subject} is Protobuf: not compared (needs the descriptor set)"}
    assert test["status"] == "passed"  # the declared columns were still checked


def test_hostile_records_fail_their_test_with_a_reason_and_the_run_goes_on(
    streamt_project, topics, kafka_bootstrap
) -> None:
    """Issue 28, findings 6 and 7: one bad record never turns a run into E999, and a value is shown, not obeyed."""
    from streamt_testing import run_cli_text

    topic = topics(1)
    hostile_status = "\x1b]0;PWNED\x07\x1b[2J"
    records = [
        b'{"order_id":' * 5_000 + b"1" + b"}" * 5_000,  # deeply nested
        b'{"order_id": "o-\\ud800"}',  # a lone surrogate
        json.dumps({f"k{i}": i for i in range(20_000)}).encode(),  # 20,000 keys
        json.dumps({"order_id": "o1", "status": hostile_status, "Status": "x"}).encode(),  # differ only in case
        json.dumps({**order(2), "status": hostile_status}).encode(),
    ]
    produce(kafka_bootstrap, topic, [(0, None, value) for value in records])
    tests = [
        {"name": "hostile", "model": "orders", "type": "sample", "assertions": [
            {"accepted_values": {"column": "status", "values": ["new", "paid"]}},
            {"custom_sql": {"sql": "SELECT count(*) FROM {{ model }}", "expect": 2}},
        ]},
    ]  # fmt: skip
    root = project(streamt_project, kafka_bootstrap, None, topic, tests)
    outcome = run_cli("test", "-p", root)
    assert outcome.exit_code == 1 and "E999_INTERNAL_ERROR" not in outcome.error_codes, outcome.envelope
    test = results(outcome)["hostile"]
    assert counts(test)[:2] == [("decode", "failed", 5, 3), ("accepted_values(status)", "failed", 2, 2)]
    assert [e["problem"] for e in test["assertions"][0]["examples"]] == [
        "record out of bounds: nested deeper than 64 levels",
        "record out of bounds: a string holds a lone surrogate",
        "record out of bounds: more than 1000 fields",
    ]
    assert test["assertions"][2]["reason"] == "fields 'status' and 'Status' differ only in case"
    text = run_cli_text("test", "-p", root)
    assert text.exit_code == 1 and "PWNED" in text.stdout
    assert "\x1b" not in text.stdout + text.stderr and "\x07" not in text.stdout + text.stderr
