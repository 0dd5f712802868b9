"""Schema Registry subjects keep the provider contract (streamt_testing.contracts), against the real registry."""

from __future__ import annotations

import json
import secrets

import pytest
from streamt.project.model import KafkaRuntime, Runtime, SchemaRegistryRuntime
from streamt.sdk import ASSUMED_ABSENT, KIND_SCHEMA, Action, Artifact
from streamt_kafka.deployers import SchemaDeployer
from streamt_kafka.observers import SchemaObserver
from streamt_kafka.planning import SchemaPlanner
from streamt_testing.contracts import ProviderContract

pytestmark = pytest.mark.schema_registry


def _subject(subject: str, fields: list[tuple[str, str]], schema_type: str = "record") -> Artifact:
    body = {
        "type": schema_type,
        "name": "contract_value",
        "fields": [{"name": n, "type": ["null", t], "default": None} for n, t in fields],
    }
    spec = {"format": "AVRO", "subject": subject, "schema": json.dumps(body, sort_keys=True, separators=(",", ":"))}
    return Artifact(KIND_SCHEMA, subject, subject, spec, provider="streamt-kafka")


class TestSchemaSubjectProvider(ProviderContract):
    @pytest.fixture
    def provider(self, schema_registry_url: str):
        runtime = Runtime(
            kafka=KafkaRuntime(bootstrap_servers="unused:9092"),
            schema_registry=SchemaRegistryRuntime(url=schema_registry_url),
        )
        return SchemaObserver(runtime), SchemaPlanner(), SchemaDeployer(runtime)

    @pytest.fixture
    def desired(self, provider):
        artifact = _subject(f"contract.{secrets.token_hex(4)}-value", [("id", "string")])
        yield artifact
        _observer, _planner, deployer = provider
        deployer.rollback(Action.for_artifact("create", artifact, "", ASSUMED_ABSENT), artifact)  # clean up

    @pytest.fixture
    def unbatched_reason(self):
        return "the Schema Registry API reads one subject per request (no batch read)"

    @pytest.fixture
    def changed(self):
        # A new optional field: a compatible new version (an update).
        return lambda artifact: _subject(artifact.identity, [("id", "string"), ("note", "string")])
