"""The running Conduktor Gateway stub process (its API is unit-tested in gateway_stub/)."""

from __future__ import annotations

import uuid

import pytest

requests = pytest.importorskip("requests")

pytestmark = pytest.mark.gateway


def test_health_and_auth(gateway_url, gateway_credentials):
    assert requests.get(f"{gateway_url}/health", timeout=10).json()["status"] == "UP"
    assert requests.get(f"{gateway_url}/gateway/v2/alias-topic", timeout=10).status_code == 401
    assert (
        requests.get(f"{gateway_url}/gateway/v2/alias-topic", auth=gateway_credentials, timeout=10).status_code == 200
    )


def test_alias_round_trip(gateway_url, gateway_credentials):
    name = f"devstack-{uuid.uuid4().hex[:8]}"
    body = {
        "kind": "AliasTopic",
        "apiVersion": "gateway/v2",
        "metadata": {"name": name},
        "spec": {"physicalName": "orders"},
    }
    r = requests.put(f"{gateway_url}/gateway/v2/alias-topic", json=body, auth=gateway_credentials, timeout=10)
    assert r.status_code == 200 and r.json()["upsertResult"] == "Created"
    items = requests.get(
        f"{gateway_url}/gateway/v2/alias-topic", params={"name": name}, auth=gateway_credentials, timeout=10
    ).json()
    assert [i["spec"]["physicalName"] for i in items] == ["orders"]
    r = requests.delete(
        f"{gateway_url}/gateway/v2/alias-topic", json={"name": name}, auth=gateway_credentials, timeout=10
    )
    assert r.status_code == 204
