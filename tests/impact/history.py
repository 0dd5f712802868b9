"""A scripted repository history: one commit per kind of change, for the impact tests.

The project lives in ``pipeline/`` of the repository (so the reader's sub-directory prefix is
exercised) and needs the Kafka, Flink, Kafka Streams and Connect plugins (no service is contacted).
Its runtime uses ``${KAFKA_BOOTSTRAP}`` with no ``.env``: snapshots must not need the value.
``STEPS`` is the history in order; each step is (commit subject, {path: new content or None to delete}).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

PROJECT = "pipeline"

PROJECT_FILE = """\
project: {name: shop}
runtime:
  kafka: {bootstrap_servers: "${KAFKA_BOOTSTRAP}"}
  flink: {default: local, clusters: {local: {rest_url: "http://localhost:8081"}}}
"""

SOURCES = """\
sources:
  - name: orders_raw
    topic: shop.orders.raw
    owner: team-orders
    columns:
      - {name: order_id, type: STRING}
      - {name: customer_id, type: STRING}
      - {name: amount_cents, type: BIGINT}
      - {name: status, type: STRING}
"""

CLEAN = """\
models:
  - name: orders_clean
    owner: team-orders
    description: Valid orders
    materialized: flink
    key: order_id
    sql: |
      SELECT order_id, customer_id, amount_cents, status
      FROM {{ source("orders_raw") }}
      WHERE amount_cents > 0
    advanced:
      topic: {name: shop.orders.clean, partitions: 3}
"""

REVENUE = """\
models:
  - name: revenue_per_customer
    owner: team-finance
    materialized: flink
    sql: |
      SELECT customer_id, SUM(amount_cents) AS revenue_cents
      FROM {{ ref("orders_clean") }}
      GROUP BY customer_id
    contract:
      enforced: true
      columns:
        - {name: revenue_cents, type: BIGINT}
    advanced:
      flink: {state_ttl_ms: 3600000}
      topic: {name: shop.revenue, partitions: 3}
"""

EXPOSURES = """\
exposures:
  - name: fraud_detector
    type: application
    owner: team-risk
    consumes:
      - ref: orders_clean
        columns:
          - {name: order_id, type: STRING}
          - {name: amount_cents, type: BIGINT}
          - {name: status, type: STRING}
  - name: loyalty_service
    type: application
    owner: team-loyalty
    consumes:
      - ref: revenue_per_customer
        columns:
          - {name: customer_id, type: STRING}
          - {name: revenue_cents, type: BIGINT}
"""

TESTS = """\
tests:
  - name: orders_clean_amounts
    model: orders_clean
    type: sample
    assertions:
      - range: {column: amount_cents, min: 0}
"""

RUNNER = """\
models:
  - name: paid_orders
    owner: team-orders
    materialized: topic
    executor: kafka_streams
    sql: "SELECT order_id, status FROM {{ source('orders_raw') }} WHERE status = 'paid'"
"""


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, (old, text)
    return text.replace(old, new)


def _steps() -> list[tuple[str, dict[str, str | None]]]:
    clean, revenue, sources, exposures, tests = CLEAN, REVENUE, SOURCES, EXPOSURES, TESTS
    steps: list[tuple[str, dict[str, str | None]]] = [
        (
            "base project",
            {
                "stream_project.yml": PROJECT_FILE,
                "sources/orders.yml": sources,
                "models/clean.yml": clean,
                "models/revenue.yml": revenue,
                "exposures/apps.yml": exposures,
                "tests/orders.yml": tests,
            },
        )
    ]

    def step(subject: str, path: str, text: str) -> str:
        steps.append((subject, {path: text}))
        return text

    clean = step("description", "models/clean.yml", _edit(clean, "Valid orders", "Orders with a positive amount"))
    sources = step(
        "column added",
        "sources/orders.yml",
        _edit(
            sources,
            "{name: status, type: STRING}",
            "{name: status, type: STRING}\n      - {name: currency, type: STRING}",
        ),
    )
    clean = step("predicate only", "models/clean.yml", _edit(clean, "amount_cents > 0", "amount_cents > 100"))
    clean = step(
        "sql formatting", "models/clean.yml", _edit(clean, "      WHERE amount_cents", "      WHERE  amount_cents")
    )
    clean = step(
        "column removed",
        "models/clean.yml",
        _edit(
            clean, "SELECT order_id, customer_id, amount_cents, status", "SELECT order_id, customer_id, amount_cents"
        ),
    )
    sources = step(
        "type narrowed",
        "sources/orders.yml",
        _edit(sources, "{name: amount_cents, type: BIGINT}", "{name: amount_cents, type: INT}"),
    )
    clean = step("keyed partitions", "models/clean.yml", _edit(clean, "partitions: 3", "partitions: 6"))
    revenue = step("unkeyed partitions", "models/revenue.yml", _edit(revenue, "partitions: 3", "partitions: 4"))
    clean = step("key changed", "models/clean.yml", _edit(clean, "key: order_id", "key: customer_id"))
    revenue = step(
        "topic renamed", "models/revenue.yml", _edit(revenue, "name: shop.revenue,", "name: shop.revenue.v2,")
    )
    revenue = step("contract lowered", "models/revenue.yml", _edit(revenue, "enforced: true", "enforced: false"))
    revenue = step(
        "flink setting", "models/revenue.yml", _edit(revenue, "state_ttl_ms: 3600000", "state_ttl_ms: 7200000")
    )
    revenue = step(
        "ownership adopted",
        "models/revenue.yml",
        _edit(revenue, "    owner: team-finance\n", "    owner: team-finance\n    ownership: {mode: adopted}\n"),
    )
    tests = step("test changed", "tests/orders.yml", _edit(tests, "min: 0}", "min: 1}"))
    exposures = step(
        "exposure owner", "exposures/apps.yml", _edit(exposures, "owner: team-loyalty", "owner: team-rewards")
    )
    steps.append(
        (
            "model removed",
            {
                "models/revenue.yml": None,
                "exposures/apps.yml": _edit(
                    exposures,
                    "      - ref: revenue_per_customer\n        columns:\n"
                    "          - {name: customer_id, type: STRING}\n          - {name: revenue_cents, type: BIGINT}\n",
                    "      - ref: orders_clean\n        columns:\n          - {name: customer_id, type: STRING}\n",
                ),
            },
        )
    )
    project = step(
        "runner added",
        "stream_project.yml",
        PROJECT_FILE
        + '  kafka_streams: {image: "sha256:'
        + "a" * 64
        + '", docker_network: shop, initial_offset: latest}\n'
        + '  connect: {default: main, clusters: {main: {rest_url: "http://localhost:8083"}}}\n',
    )
    steps[-1][1]["models/paid.yml"] = RUNNER
    paid = step("runner predicate", "models/paid.yml", _edit(RUNNER, "'paid'", "'shipped'"))
    step("executor moved", "models/paid.yml", _edit(paid, "executor: kafka_streams", "executor: flink"))
    step(
        "tombstone",
        "stream_project.yml",
        project
        + "lifecycle:\n  connector_removals:\n    - {logical_owner: orders_to_db, name: orders_to_db, cluster: main}\n",
    )
    return steps


STEPS = _steps()

B, OP, N = "breaking", "operational", "non-breaking"

# What impact must answer for each step against the one before it.
# subject -> ({(kind, name): {field: classification}}, {impacted name: breaking?})
EXPECTED: dict[str, tuple[dict[tuple[str, str], dict[str, str]], dict[str, bool]]] = {
    "description": ({("model", "orders_clean"): {"description": N}}, {}),
    "column added": (
        {
            ("source", "orders_raw"): {"columns.currency": N},
            # The job's source table gains the column, so the job itself is redeployed.
            ("model", "orders_clean"): {"compiled.flink_job": OP},
        },
        {},
    ),
    "predicate only": (
        {("model", "orders_clean"): {"sql": OP}},
        {"fraud_detector": False, "loyalty_service": False, "revenue_per_customer": False},
    ),
    "sql formatting": ({("model", "orders_clean"): {"sql": N}}, {}),
    "column removed": (
        {
            ("model", "orders_clean"): {"columns.status": B, "sql": OP},
            ("model", "revenue_per_customer"): {"compiled.flink_job": OP},
        },
        {"fraud_detector": True, "loyalty_service": False, "revenue_per_customer": False},
    ),
    "type narrowed": (
        {
            ("source", "orders_raw"): {"columns.amount_cents": B},
            ("model", "orders_clean"): {"compiled.flink_job": OP},
            ("model", "revenue_per_customer"): {"compiled.flink_job": OP},
        },
        # Through column lineage: orders_clean copies amount_cents (fraud_detector reads it), and
        # revenue_per_customer's SUM inherits its type into revenue_cents, which loyalty_service reads.
        {"orders_clean": True, "fraud_detector": True, "revenue_per_customer": True, "loyalty_service": True},
    ),
    "keyed partitions": (
        {("model", "orders_clean"): {"topic.partitions": B}},
        {"fraud_detector": True, "loyalty_service": False, "revenue_per_customer": True},
    ),
    "unkeyed partitions": ({("model", "revenue_per_customer"): {"topic.partitions": N}}, {}),
    "key changed": (
        {("model", "orders_clean"): {"key": B}},
        {"fraud_detector": True, "loyalty_service": False, "revenue_per_customer": True},
    ),
    "topic renamed": ({("model", "revenue_per_customer"): {"topic.name": B}}, {"loyalty_service": True}),
    "contract lowered": ({("model", "revenue_per_customer"): {"contract.enforced": B}}, {"loyalty_service": True}),
    "flink setting": ({("model", "revenue_per_customer"): {"flink.state_ttl_ms": OP}}, {}),
    "ownership adopted": ({("model", "revenue_per_customer"): {"ownership.mode": OP}}, {}),
    "test changed": ({("test", "orders_clean_amounts"): {"assertions": N}}, {}),
    "exposure owner": ({("exposure", "loyalty_service"): {"owner": N}}, {}),
    "model removed": (
        {
            # Read at the base by loyalty_service, which still exists: its code still reads the topic.
            ("model", "revenue_per_customer"): {"declaration": B},
            ("exposure", "loyalty_service"): {"consumes": N},
        },
        {"loyalty_service": True},
    ),
    "runner added": ({("model", "paid_orders"): {"declaration": N}}, {}),
    "runner predicate": ({("model", "paid_orders"): {"sql": OP}}, {}),
    "executor moved": ({("model", "paid_orders"): {"executor": OP}}, {}),
    "tombstone": ({("lifecycle", "orders_to_db"): {"lifecycle.connector_removals": OP}}, {}),
}
WORKFLOWS = {
    "column added": ["flink_savepoint_upgrade"],
    "predicate only": ["flink_savepoint_upgrade"],
    "column removed": ["flink_savepoint_upgrade"],
    "type narrowed": ["flink_savepoint_upgrade"],
    "topic renamed": ["reviewed_removal"],
    "flink setting": ["flink_savepoint_upgrade"],
    "ownership adopted": ["adoption"],
    "model removed": ["reviewed_removal"],
    "runner predicate": ["kafka_streams_replacement"],
    "executor moved": ["executor_replacement"],
    "tombstone": ["reviewed_removal"],
}


def git(repo: Path, *args: str) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def build(repo: Path) -> list[str]:
    """Create the repository at ``repo``; the commit id of every step, in order."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    commits = []
    for subject, files in STEPS:
        for relative, content in files.items():
            path = repo / PROJECT / relative
            if content is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", subject)
        commits.append(git(repo, "rev-parse", "HEAD"))
    return commits


def fields_of(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, str]]:
    """(kind, name) -> field -> classification, from a report's JSON."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for change in data["changes"]:
        fields = out.setdefault((change["kind"], change["name"]), {})
        for field in change["fields"]:
            # One field may carry two findings (removed while read: breaking + reviewed removal); keep the worst.
            levels = [fields.get(field["field"]), field["classification"]]
            fields[field["field"]] = max((x for x in levels if x), key=[N, OP, B].index)
    return out
