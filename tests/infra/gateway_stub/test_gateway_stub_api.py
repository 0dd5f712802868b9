"""Unit tests of the Conduktor Gateway stub: shapes, auth and status codes from the facts file."""

from __future__ import annotations

import base64
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from gateway_stub import serve_in_thread

ADMIN = ("admin", "conduktor")


@pytest.fixture()
def gw():
    users = [
        {"username": "admin", "password": "conduktor", "admin": True},
        {"username": "reader", "password": "r", "admin": False},
    ]
    server, url = serve_in_thread(users=users)
    yield url
    server.shutdown()
    server.server_close()


def call(url, method, path, body=None, auth=ADMIN, raw=None, ctype="application/json"):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    headers = {}
    if data is not None:
        headers["Content-Type"] = ctype
    if auth:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    req = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            status, payload, ct = r.status, r.read(), r.headers.get("Content-Type")
    except urllib.error.HTTPError as e:
        status, payload, ct = e.code, e.read(), e.headers.get("Content-Type")
    if ct == "application/json" and payload:
        return status, json.loads(payload)
    return status, payload.decode()


def alias(name, physical, vc=None):
    meta = {"name": name}
    if vc is not None:
        meta["vCluster"] = vc
    return {"kind": "AliasTopic", "apiVersion": "gateway/v2", "metadata": meta, "spec": {"physicalName": physical}}


def interceptor(name, scope=None, **spec):
    meta = {"name": name}
    if scope is not None:
        meta["scope"] = scope
    base = {
        "pluginClass": "io.conduktor.gateway.interceptor.VirtualSqlTopicPlugin",
        "priority": 100,
        "config": {"virtualTopic": "orders_eu", "statement": "SELECT * FROM orders WHERE region = 'EU'"},
    }
    base.update(spec)
    return {"kind": "Interceptor", "apiVersion": "gateway/v2", "metadata": meta, "spec": base}


def vcluster(name, **spec):
    return {"kind": "VirtualCluster", "apiVersion": "gateway/v2", "metadata": {"name": name}, "spec": spec}


def test_health_is_open(gw):
    status, body = call(gw, "GET", "/health", auth=None)
    assert status == 200 and body["status"] == "UP"
    assert body["checks"][0]["data"]["version"]


def test_auth_required_and_checked(gw):
    for auth in (None, ("admin", "wrong")):
        status, body = call(gw, "GET", "/gateway/v2/alias-topic", auth=auth)
        assert status == 401
        assert body == {"title": "The given credentials are not valid"}


def test_non_admin_can_read_not_write(gw):
    assert call(gw, "GET", "/gateway/v2/alias-topic", auth=("reader", "r"))[0] == 200
    assert call(gw, "PUT", "/gateway/v2/alias-topic", alias("a", "b"), auth=("reader", "r"))[0] == 403


def test_v1_api_is_gone(gw):
    assert call(gw, "POST", "/admin/vclusters/v1/vcluster/x/topics/t", {"physicalTopicName": "t"})[0] in (404, 405)


def test_alias_lifecycle(gw):
    status, body = call(gw, "PUT", "/gateway/v2/alias-topic", alias("orders.eu", "orders"))
    assert status == 200 and body["upsertResult"] == "Created"
    assert body["resource"]["metadata"] == {"name": "orders.eu", "vCluster": "passthrough"}
    assert body["resource"]["spec"]["physicalName"] == "orders"
    # Same again: NotChanged; new target: Updated.
    assert call(gw, "PUT", "/gateway/v2/alias-topic", alias("orders.eu", "orders"))[1]["upsertResult"] == "NotChanged"
    assert call(gw, "PUT", "/gateway/v2/alias-topic", alias("orders.eu", "orders2"))[1]["upsertResult"] == "Updated"
    status, items = call(gw, "GET", "/gateway/v2/alias-topic?name=orders.eu")
    assert status == 200 and [i["spec"]["physicalName"] for i in items] == ["orders2"]
    # A GET result can be sent back as a PUT body.
    assert call(gw, "PUT", "/gateway/v2/alias-topic", items[0])[1]["upsertResult"] == "NotChanged"
    # Delete takes the key in a JSON body.
    assert call(gw, "DELETE", "/gateway/v2/alias-topic", {"name": "orders.eu", "vCluster": "passthrough"}) == (204, "")
    status, body = call(gw, "DELETE", "/gateway/v2/alias-topic", {"name": "orders.eu"})
    assert status == 404 and "does not exist" in body["msg"]


def test_alias_in_unknown_vcluster_is_404(gw):
    assert call(gw, "PUT", "/gateway/v2/alias-topic", alias("a", "b", vc="nope"))[0] == 404
    assert call(gw, "GET", "/gateway/v2/alias-topic?vcluster=nope")[0] == 404


def test_alias_delete_without_body_is_400(gw):
    assert call(gw, "DELETE", "/gateway/v2/alias-topic")[0] == 400


def test_strict_envelope(gw):
    bad = alias("a", "b")
    del bad["apiVersion"]
    assert call(gw, "PUT", "/gateway/v2/alias-topic", bad)[0] == 400
    bad = alias("a", "b")
    bad["metadata"]["vcluster"] = "passthrough"  # misspelt key
    status, body = call(gw, "PUT", "/gateway/v2/alias-topic", bad)
    assert status == 400 and "vcluster" in body["msg"]
    bad = alias("a", "b")
    bad["apiVersion"] = "gateway/v1"
    assert call(gw, "PUT", "/gateway/v2/alias-topic", bad)[0] == 400
    bad = alias("bad name!", "b")
    assert call(gw, "PUT", "/gateway/v2/alias-topic", bad)[0] == 400


def test_undecodable_body_is_text_400(gw):
    status, body = call(gw, "PUT", "/gateway/v2/alias-topic", raw=b"{not json")
    assert status == 400 and body == "Invalid value for: body"


def test_wrong_content_type_is_refused(gw):
    status, _ = call(gw, "PUT", "/gateway/v2/alias-topic", raw=json.dumps(alias("a", "b")).encode(), ctype="text/plain")
    assert status == 415


def test_dry_mode_stores_nothing(gw):
    status, body = call(gw, "PUT", "/gateway/v2/alias-topic?dryMode=true", alias("a", "b"))
    assert status == 200 and body["upsertResult"] == "Created"
    assert call(gw, "GET", "/gateway/v2/alias-topic")[1] == []


def test_interceptor_scope_defaults_to_passthrough(gw):
    status, body = call(gw, "PUT", "/gateway/v2/interceptor", interceptor("orders_eu_filter_0"))
    assert status == 200 and body["upsertResult"] == "Created"
    assert body["resource"]["metadata"]["scope"] == {"vCluster": "passthrough", "group": None, "username": None}
    status, items = call(gw, "GET", "/gateway/v2/interceptor?name=orders_eu_filter_0&global=false&vcluster=passthrough")
    assert status == 200 and len(items) == 1
    assert items[0]["spec"]["config"]["virtualTopic"] == "orders_eu"


def test_interceptor_same_name_different_scopes(gw):
    assert call(gw, "PUT", "/gateway/v2/virtual-cluster", vcluster("tenant1"))[0] == 200
    call(gw, "PUT", "/gateway/v2/interceptor", interceptor("mask"))
    call(gw, "PUT", "/gateway/v2/interceptor", interceptor("mask", scope={"vCluster": "tenant1"}))
    assert len(call(gw, "GET", "/gateway/v2/interceptor?name=mask")[1]) == 2
    # Delete by name + scope body; no body means passthrough.
    assert call(gw, "DELETE", "/gateway/v2/interceptor/mask", {"vCluster": "tenant1"})[0] == 204
    assert call(gw, "DELETE", "/gateway/v2/interceptor/mask")[0] == 204
    status, body = call(gw, "DELETE", "/gateway/v2/interceptor/mask")
    assert status == 404 and body["msg"] == "The given interceptor does not exist"


def test_interceptor_validation(gw):
    cases = [
        interceptor("x", pluginClass="io.conduktor.gateway.interceptor.safeguard.FieldLevelMaskingPlugin"),
        interceptor("x", priority="100"),
        interceptor("x", config={"virtualTopic": "v"}),  # statement missing
        interceptor(
            "x",
            pluginClass="io.conduktor.gateway.interceptor.FieldLevelDataMaskingPlugin",
            config={"policies": [{"name": "p", "fields": ["card"], "rule": {"type": "MASK_FIRST_N"}}]},
        ),
        interceptor(
            "x",
            pluginClass="io.conduktor.gateway.interceptor.FieldLevelDataMaskingPlugin",
            config={
                "policies": [{"name": "p", "fields": ["card"], "rule": {"type": "MASK_ALL", "maskingString": "*"}}]
            },
        ),
    ]
    for c in cases:
        assert call(gw, "PUT", "/gateway/v2/interceptor", c)[0] == 400, c
    spec = interceptor("x")["spec"]
    del spec["config"]
    assert (
        call(
            gw,
            "PUT",
            "/gateway/v2/interceptor",
            {"kind": "Interceptor", "apiVersion": "gateway/v2", "metadata": {"name": "x"}, "spec": spec},
        )[0]
        == 400
    )
    ok = interceptor(
        "mask",
        pluginClass="io.conduktor.gateway.interceptor.FieldLevelDataMaskingPlugin",
        config={
            "topic": "orders.*",
            "policies": [{"name": "p", "fields": ["card"], "rule": {"type": "MASK_LAST_N", "numberOfChars": 4}}],
        },
    )
    assert call(gw, "PUT", "/gateway/v2/interceptor", ok)[0] == 200


def test_interceptor_unknown_vcluster_is_404(gw):
    assert call(gw, "PUT", "/gateway/v2/interceptor", interceptor("x", scope={"vCluster": "ghost"}))[0] == 404


def test_vcluster_rules(gw):
    assert call(gw, "PUT", "/gateway/v2/virtual-cluster", vcluster("passthrough"))[0] == 400
    status, body = call(gw, "PUT", "/gateway/v2/virtual-cluster", vcluster("t1", aclEnabled=True))
    assert status == 200 and body["upsertResult"] == "Created"
    assert call(gw, "GET", "/gateway/v2/virtual-cluster/t1")[1]["spec"]["aclEnabled"] is True
    assert call(gw, "GET", "/gateway/v2/virtual-cluster/ghost")[0] == 404
    call(gw, "PUT", "/gateway/v2/alias-topic", alias("a", "b", vc="t1"))
    assert call(gw, "DELETE", "/gateway/v2/virtual-cluster/t1")[0] == 409
    call(gw, "DELETE", "/gateway/v2/alias-topic", {"name": "a", "vCluster": "t1"})
    assert call(gw, "DELETE", "/gateway/v2/virtual-cluster/t1")[0] == 204
    assert call(gw, "DELETE", "/gateway/v2/virtual-cluster/passthrough")[0] == 400


def test_unknown_kind_is_404(gw):
    assert call(gw, "GET", "/gateway/v2/concentration-rule")[0] == 404
