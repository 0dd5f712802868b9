"""Schema Registry reads, compatibility checks and registration against the real local registry."""

from __future__ import annotations

import json
import uuid

import pytest
from streamt.artifacts import Artifact
from streamt.errors import StreamtError
from streamt_kafka import observers
from streamt_kafka.registry_live import RegistryClient, observe_subject

pytestmark = pytest.mark.schema_registry


def _avro(*fields: tuple[str, object]) -> str:
    return json.dumps(
        {
            "type": "record",
            "name": "Order",
            "fields": [{"name": n, "type": t} if not isinstance(t, dict) else {"name": n, **t} for n, t in fields],
        }
    )


V1 = _avro(("id", "string"))
V2_COMPATIBLE = _avro(("id", "string"), ("note", {"type": ["null", "string"], "default": None}))
V2_INCOMPATIBLE = _avro(("id", "long"))


def test_observe_register_and_refuse_incompatible(schema_registry_url: str) -> None:
    client = RegistryClient(schema_registry_url)
    subject = f"streamt-test-{uuid.uuid4().hex[:8]}-value"

    assert observe_subject(client, subject, V1, "avro").status == "absent"
    assert client.is_compatible(subject, V1, "avro")
    schema_id = client.register(subject, V1, "avro")
    assert schema_id >= 0

    same = observe_subject(client, subject, V1, "avro")
    assert same.status == "present"
    assert same.spec is not None and same.spec["identical"] and same.spec["version"] == 1

    compatible = observe_subject(client, subject, V2_COMPATIBLE, "avro")
    assert compatible.spec is not None and not compatible.spec["identical"] and compatible.spec["compatible"]

    incompatible = observe_subject(client, subject, V2_INCOMPATIBLE, "avro")
    assert incompatible.spec is not None and incompatible.spec["compatible"] is False

    with pytest.raises(StreamtError) as caught:
        client.register(subject, V2_INCOMPATIBLE, "avro")
    assert caught.value.diagnostics[0].code.code == "E402_SCHEMA_INCOMPATIBLE"


def test_an_unreachable_registry_is_a_connection_error() -> None:
    client = RegistryClient("http://127.0.0.1:9/apis/ccompat/v7")
    with pytest.raises(StreamtError) as caught:
        client.latest("anything-value")
    assert caught.value.diagnostics[0].code.code == "E406_CONNECTION_REFUSED"


def test_observing_many_subjects_keeps_their_order_over_pooled_connections(schema_registry_url: str) -> None:
    client = RegistryClient(schema_registry_url)
    prefix = f"streamt-test-{uuid.uuid4().hex[:8]}"
    names = [f"{prefix}-{i:02d}-value" for i in range(20)]
    for name in names[::2]:
        client.register(name, V1, "avro")
    registry = type("Registry", (), {"url": schema_registry_url, "username": None, "password": None})
    runtime = type("Runtime", (), {"schema_registry": registry})()
    try:
        items = [Artifact("schema", n, n, {"subject": n, "schema": V1, "format": "avro"}) for n in reversed(names)]
        observed = observers.SchemaObserver(runtime).observe(items)
        assert list(observed) == list(reversed(names))  # the artifacts' order, whatever finished first
        assert [observed[n].status for n in names] == ["present", "absent"] * 10
        assert all(observed[n].spec["identical"] for n in names[::2])  # type: ignore[index]
    finally:
        for name in names[::2]:
            client.delete_subject(name)
