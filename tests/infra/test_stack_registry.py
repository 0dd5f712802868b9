"""The devstack schema registry behaves like Confluent's where streamt relies on it."""

from __future__ import annotations

import json
import uuid

import pytest

requests = pytest.importorskip("requests")

pytestmark = pytest.mark.schema_registry
CT = {"Content-Type": "application/vnd.schemaregistry.v1+json"}


def _avro(*fields):
    return json.dumps({"type": "record", "name": "Order", "namespace": "devstack", "fields": [dict(f) for f in fields]})


def test_url_is_the_ccompat_base(schema_registry_url):
    assert schema_registry_url.endswith("/apis/ccompat/v7")
    r = requests.get(f"{schema_registry_url}/subjects", timeout=10)
    assert r.status_code == 200 and isinstance(r.json(), list)


def test_compatibility_enforced_and_deletes_allowed(schema_registry_url):
    subject = f"devstack-{uuid.uuid4().hex[:8]}-value"
    base = f"{schema_registry_url}/subjects/{subject}"
    v1 = _avro({"name": "id", "type": "string"})
    r = requests.post(f"{base}/versions", data=json.dumps({"schema": v1}), headers=CT, timeout=10)
    assert r.status_code == 200, r.text
    first_id = r.json()["id"]
    # A new required field without default breaks BACKWARD: refused on registration.
    bad = _avro({"name": "id", "type": "string"}, {"name": "qty", "type": "int"})
    r = requests.post(f"{base}/versions", data=json.dumps({"schema": bad}), headers=CT, timeout=10)
    assert r.status_code == 409, r.text
    good = _avro({"name": "id", "type": "string"}, {"name": "qty", "type": "int", "default": 0})
    r = requests.post(
        f"{schema_registry_url}/compatibility/subjects/{subject}/versions/latest",
        data=json.dumps({"schema": good}),
        headers=CT,
        timeout=10,
    )
    assert r.status_code == 200 and r.json()["is_compatible"] is True
    r = requests.post(f"{base}/versions", data=json.dumps({"schema": good}), headers=CT, timeout=10)
    assert r.status_code == 200 and r.json()["id"] != first_id
    assert requests.get(f"{base}/versions", timeout=10).json() == [1, 2]
    # Soft then hard delete, as with Confluent.
    assert requests.delete(base, timeout=10).status_code == 200
    assert requests.delete(f"{base}?permanent=true", timeout=10).status_code == 200
    assert subject not in requests.get(f"{schema_registry_url}/subjects", timeout=10).json()
