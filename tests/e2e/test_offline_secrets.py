"""Offline commands need no secrets (dsl.md section 2.2): a docs or GitOps CI job runs without credentials.

A two-environment project puts a variable in every secret field ``envs show`` masks (the Kafka SASL
password, the userinfo of the Schema Registry URL, the Connect and Gateway passwords, a sink's
connection password). With every ``PROD_*`` secret unset, each command that never connects succeeds
for ``prod``, shows no secret of the other environment, and what it writes keeps the ``${VAR}``
placeholders: byte for byte what it writes when the secrets are set. An unset non-secret variable
is still ``E502``, and so is an unset secret for a command that connects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

SECRET_FIELDS = ("KAFKA_PASSWORD", "SR_USER", "SR_PASSWORD", "CONNECT_PASSWORD", "GATEWAY_PASSWORD", "DB_PASSWORD")
PROD_SECRETS = {f"PROD_{name}": None for name in SECRET_FIELDS}
# The other environment's secrets are set: none of them may appear in any output.
DEV_SECRETS = {f"DEV_{name}": f"dev-leaked-{name.lower()}" for name in SECRET_FIELDS}
BOOTSTRAP = {"PROD_BOOTSTRAP": "kafka.prod.example:9092", "DEV_BOOTSTRAP": "kafka.dev.example:9092"}

BACKSTAGE = "--catalog-id shop --catalog-namespace shop --default-owner-ref group:default/shop --lifecycle production"
BACKSTAGE += " --kafka-cluster-ref resource:default/kafka --gateway-cluster-ref resource:default/gateway"
OFFLINE = [
    tuple(line.split())
    for line in (
        "validate",
        "compile",
        "build",
        "lineage",
        "lineage --format json",
        "list models",
        "show model orders_to_db",
        "show model gold_orders_view",
        "docs generate",
        "docs dictionary",
        "docs asyncapi",
        "docs odcs --contract-id shop --status active",
        f"docs backstage {BACKSTAGE}",
        "docs datahub --catalog-id shop --fabric PROD --gateway-platform-id conduktor --gateway-platform-instance prod",
        "docs openlineage --job-namespace shop --gateway-namespace kafka://gateway.prod.example:6969",
        "export strimzi --namespace kafka --cluster-name prod",
        "plan --offline",
    )
]
# What a command writes into the project, where placeholders must stay.
WRITTEN = {"compile": "generated", "build": "build", "docs generate": "site"}


def environment(name: str) -> dict[str, Any]:
    upper = name.upper()
    return {
        "environment": {"name": name, "description": f"{name} cluster"},
        "runtime": {
            "kafka": {
                "bootstrap_servers": f"${{{upper}_BOOTSTRAP}}",
                "security_protocol": "SASL_SSL",
                "sasl_mechanism": "PLAIN",
                "sasl_username": f"svc-{name}",
                "sasl_password": f"${{{upper}_KAFKA_PASSWORD}}",
            },
            "schema_registry": {"url": f"https://${{{upper}_SR_USER}}:${{{upper}_SR_PASSWORD}}@sr.{name}.example:8081"},
            "connect": {
                "default": "main",
                "clusters": {
                    "main": {
                        "rest_url": f"http://connect.{name}.example:8083",
                        "username": "svc",
                        "password": f"${{{upper}_CONNECT_PASSWORD}}",
                    }
                },
            },
            "flink": {
                "default": "main",
                "clusters": {
                    "main": {
                        "rest_url": f"http://flink.{name}.example:8081",
                        "sql_gateway_url": f"http://flinksql.{name}.example:8083",
                    }
                },
            },
            "conduktor": {
                "gateway": {
                    "admin_url": f"http://gateway.{name}.example:8888",
                    "username": "admin",
                    "password": f"${{{upper}_GATEWAY_PASSWORD}}",
                }
            },
        },
    }


def write(root: Path) -> Path:
    from streamt_testing import write_project

    columns = [{"name": c, "type": "STRING"} for c in ("id", "tier", "email")]
    project = {
        "apiVersion": "streamt.dev/v1alpha1",
        "project": {"name": "shop"},
        "defaults": {"topic": {"partitions": 3, "replication_factor": 1}},
        "sources": [{"name": "orders_raw", "topic": "shop.orders.raw", "columns": columns}],
        "models": [
            {"name": "orders_clean", "advanced": {"topic": {"name": "shop.orders.clean"}}},
            {
                "name": "gold_orders_view",
                "materialized": "virtual_topic",
                "sql": "SELECT * FROM {{ source('orders_raw') }} WHERE tier = 'GOLD'",
                "advanced": {"topic": {"name": "audit.shop.orders.gold"}},
            },
            {
                "name": "orders_enriched",
                "materialized": "flink",
                "sql": "SELECT id, tier FROM {{ source('orders_raw') }} WHERE tier <> 'NONE'",
                "advanced": {"topic": {"name": "shop.orders.enriched"}},
            },
            {
                "name": "orders_to_db",
                "from": [{"source": "orders_raw"}],
                "sink": {
                    "connector": "debezium-jdbc-sink",
                    "config": {
                        "connection.url": "jdbc:postgresql://db.example:5432/shop",
                        "connection.username": "shop",
                        # The sink config is always resolved at apply time, whichever environment.
                        "connection.password": "${PROD_DB_PASSWORD}",
                    },
                },
            },
        ],
    }
    files = {"stream_project.yml": project, **{f"environments/{e}.yml": environment(e) for e in ("dev", "prod")}}
    return write_project(root, files)


def written(root: Path, command: tuple[str, ...]) -> dict[str, bytes]:
    folder = WRITTEN.get(" ".join(command[:2]) if command[0] == "docs" else command[0])
    if folder is None:
        return {}
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / folder).rglob("*")) if p.is_file()}


@pytest.mark.parametrize("command", OFFLINE, ids=" ".join)
def test_an_offline_command_runs_with_every_secret_unset_and_keeps_the_placeholders(
    tmp_path: Path, streamt_cli: Any, command: tuple[str, ...]
) -> None:
    unset_root, set_root = write(tmp_path / "unset"), write(tmp_path / "set")
    outcome = streamt_cli(*command, "--env", "prod", "-p", unset_root, env={**PROD_SECRETS, **DEV_SECRETS, **BOOTSTRAP})
    assert outcome.ok, outcome.envelope
    files = written(unset_root, command)
    everything = outcome.stdout + outcome.stderr + "".join(b.decode("utf-8", "replace") for b in files.values())
    assert "dev-leaked" not in everything and "svc-dev" not in everything
    if command[0] == "compile" or command[0] == "build":
        assert "${PROD_KAFKA_PASSWORD}" in everything and "${PROD_DB_PASSWORD}" in everything
    # With the secrets set, what it writes is the same bytes: placeholders, never the values.
    values = {name: f"prod-secret-{name.lower()}" for name in PROD_SECRETS}
    again = streamt_cli(*command, "--env", "prod", "-p", set_root, env=values)
    assert again.ok, again.envelope
    assert written(set_root, command) == files
    assert "prod-secret" not in again.stdout + again.stderr


@pytest.mark.parametrize(
    "command", [("validate",), ("compile",), ("docs", "generate"), ("plan", "--offline")], ids=" ".join
)
def test_an_unset_non_secret_variable_is_still_e502(tmp_path: Path, streamt_cli: Any, command: tuple[str, ...]) -> None:
    root = write(tmp_path / "p")
    outcome = streamt_cli(*command, "--env", "prod", "-p", root, env={**PROD_SECRETS, "PROD_BOOTSTRAP": None})
    assert outcome.exit_code != 0
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E502_ENV_VAR_ERROR" and error["message"].endswith(": PROD_BOOTSTRAP"), error


@pytest.mark.parametrize("command", [("plan",), ("show", "model", "orders_clean", "--diff")], ids=" ".join)
def test_a_command_that_connects_still_needs_its_secrets(
    tmp_path: Path, streamt_cli: Any, command: tuple[str, ...]
) -> None:
    root = write(tmp_path / "p")
    outcome = streamt_cli(*command, "--env", "prod", "-p", root, env={**PROD_SECRETS, **BOOTSTRAP})
    assert outcome.exit_code != 0
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E502_ENV_VAR_ERROR", error
    assert "PROD_KAFKA_PASSWORD" in error["message"] and "PROD_SR_PASSWORD" in error["message"], error
