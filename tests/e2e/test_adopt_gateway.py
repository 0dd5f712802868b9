"""`adopt --kind gateway_rule` (alias-only) against the devstack's Gateway admin API v2 stub.

The AliasTopic is created by hand, then declared as an `ownership: adopted` virtual topic with no
filter and no masks. The admin API is reached through a recording proxy: adoption reads the two
collections in order (alias topics, then interceptors) before and again after confirmation, and
writes nothing. A rule with interceptors, declared or live, is not adoptable (E412).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.gateway]

COLLECTIONS = [
    ("GET", "/gateway/v2/alias-topic?vcluster=passthrough"),
    ("GET", "/gateway/v2/interceptor?vcluster=passthrough"),
]


@pytest.fixture
def live_alias(gateway_url: str, gateway_credentials: tuple[str, str]) -> Iterator[dict[str, str]]:
    suffix = uuid.uuid4().hex[:10]
    alias, physical = f"e2e.{suffix}.view", f"e2e.{suffix}.customers"
    body = {
        "kind": "AliasTopic",
        "apiVersion": "gateway/v2",
        "metadata": {"name": alias, "vCluster": "passthrough"},
        "spec": {"physicalName": physical},
    }
    put = requests.put(f"{gateway_url}/gateway/v2/alias-topic", json=body, auth=gateway_credentials, timeout=10)
    assert put.status_code == 200, put.text
    try:
        yield {"alias": alias, "physical": physical, "model": f"view_{suffix}"}
    finally:
        gone = {"name": alias, "vCluster": "passthrough"}
        requests.delete(f"{gateway_url}/gateway/v2/alias-topic", json=gone, auth=gateway_credentials, timeout=10)


def files(rule: dict[str, str], admin_url: str, credentials: tuple[str, str], where: str = "") -> dict[str, Any]:
    user, password = credentials
    return {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "adoptg"},
            "runtime": {
                "kafka": {"bootstrap_servers": "127.0.0.1:9"},
                "conduktor": {"gateway": {"admin_url": admin_url, "username": user, "password": password}},
            },
            "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
            "sources": [{"name": "customers", "topic": rule["physical"], "ownership": {"mode": "external"}}],
            "models": [
                {
                    "name": rule["model"],
                    "materialized": "virtual_topic",
                    "sql": "SELECT * FROM {{ source('customers') }}" + where,
                    "advanced": {"topic": {"name": rule["alias"]}},
                    "ownership": {"mode": "adopted"},
                }
            ],
        }
    }


def confirmation(rule: dict[str, str]) -> tuple[str, ...]:
    return ("--confirm-resource", f"streamt://adoptg/default/gateway_rule/{rule['model']}", "--confirm-env", "default")


def test_an_alias_only_rule_is_adopted_with_two_ordered_reads_before_and_after_confirmation(
    recording_proxy: Any,
    tmp_path: Path,
    streamt_cli: Any,
    live_alias: dict[str, str],
    gateway_url: str,
    gateway_credentials: Any,
) -> None:
    from streamt_testing import write_project

    with recording_proxy(gateway_url) as proxy:
        path = tmp_path / "p"
        write_project(path, files(live_alias, proxy.url, gateway_credentials))
        args = ("adopt", "-p", path, "--kind", "gateway_rule", "--name", live_alias["model"], *confirmation(live_alias))
        adopted = streamt_cli(*args)
        assert adopted.ok, adopted.envelope
        assert proxy.calls == COLLECTIONS + COLLECTIONS
        review = adopted.data["live"]  # the reference: alias, fingerprints and checksum; no physical topic
        assert sorted(review) == [
            "aggregate_fingerprint",
            "alias",
            "artifact_checksum",
            "binding_fingerprint",
            "mapping_fingerprint",
        ]
        assert review["alias"] == live_alias["alias"]
        assert all(review[k].startswith("sha256:") for k in review if k != "alias")
        assert live_alias["physical"] not in adopted.stdout and proxy.url not in adopted.stdout
        assert adopted.data["pending_changes"] == []
        assert gateway_credentials[1] not in adopted.stdout
        record = adopted.data["resource_id"]
        assert record == f"streamt://adoptg/default/gateway_rule/{live_alias['model']}"

        proxy.calls.clear()
        replan = streamt_cli("plan", "-p", path)
        assert replan.ok, replan.envelope
        assert [a["action"] for a in replan.data["actions"] if a["kind"] == "gateway_rule"] == ["noop"]
        assert all(method == "GET" for method, _ in proxy.calls)


def test_a_rule_with_interceptors_is_not_adoptable(
    recording_proxy: Any,
    tmp_path: Path,
    streamt_cli: Any,
    live_alias: dict[str, str],
    gateway_url: str,
    gateway_credentials: Any,
) -> None:
    from streamt_testing import write_project

    with recording_proxy(gateway_url) as proxy:
        path = tmp_path / "p"
        write_project(path, files(live_alias, proxy.url, gateway_credentials, where=" WHERE tier = 'GOLD'"))
        args = ("adopt", "-p", path, "--kind", "gateway_rule", "--name", live_alias["model"], *confirmation(live_alias))
        refused = streamt_cli(*args)
        assert refused.error_codes == ["E412_ADOPTION_TARGET_INVALID"]
        assert proxy.calls == []  # refused before the admin API is asked anything
    assert not (path / ".streamt" / "state" / "default.json").exists()


def test_a_missing_alias_is_e413(tmp_path: Path, streamt_cli: Any, gateway_url: str, gateway_credentials: Any) -> None:
    from streamt_testing import write_project

    suffix = uuid.uuid4().hex[:10]
    ghost = {"alias": f"e2e.{suffix}.ghost", "physical": f"e2e.{suffix}.none", "model": f"ghost_{suffix}"}
    path = tmp_path / "p"
    write_project(path, files(ghost, gateway_url, gateway_credentials))
    args = ("adopt", "-p", path, "--kind", "gateway_rule", "--name", ghost["model"], *confirmation(ghost))
    assert streamt_cli(*args).error_codes == ["E413_ADOPTION_LIVE_NOT_FOUND"]
