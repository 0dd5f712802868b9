"""plan/apply/status of Gateway rules against the devstack's stub of the Gateway admin API v2.

The stub implements the documented API (tests/infra/gateway_stub), not the proprietary product.
Every project uses a fresh alias and interceptor names, so tests never see each other's resources.
The devstack credentials are fixed (admin/conduktor), so the password-sentinel test runs its own
in-process stub whose admin password is a sentinel.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.gateway]

WRONG_PASSWORD = "gw-wrong-pw-sentinel-5d1e"
SENTINEL_PASSWORD = "gw-right-pw-sentinel-77ab"
SQL_PLUGIN = "io.conduktor.gateway.interceptor.VirtualSqlTopicPlugin"
MASK_PLUGIN = "io.conduktor.gateway.interceptor.FieldLevelDataMaskingPlugin"


@attrs.define
class GatewayProject:
    path: Path
    alias: str
    physical: str
    url: str
    auth: tuple[str, str]
    files: dict[str, Any]

    def write(self) -> None:
        from streamt_testing import write_project

        write_project(self.path, self.files)

    @property
    def model(self) -> dict[str, Any]:
        return self.files["stream_project.yml"]["models"][0]

    def aliases(self) -> list[dict[str, Any]]:
        r = requests.get(f"{self.url}/gateway/v2/alias-topic", params={"name": self.alias}, auth=self.auth, timeout=10)
        assert r.status_code == 200
        return r.json()

    def interceptors(self) -> dict[str, dict[str, Any]]:
        r = requests.get(f"{self.url}/gateway/v2/interceptor", auth=self.auth, timeout=10)
        assert r.status_code == 200
        return {i["metadata"]["name"]: i for i in r.json() if i["metadata"]["name"].startswith(self.alias + "--")}

    def everything_written(self) -> str:
        written = [p for p in sorted(self.path.rglob("*")) if p.is_file() and p.name != "stream_project.yml"]
        return "\n".join(p.read_text(errors="replace") for p in written)

    def cleanup(self) -> None:
        with contextlib.suppress(requests.RequestException):  # an in-process stub may be gone already
            self._delete_all()

    def _delete_all(self) -> None:
        for name, item in self.interceptors().items():
            scope = {"vCluster": item["metadata"]["scope"]["vCluster"]}
            requests.delete(f"{self.url}/gateway/v2/interceptor/{name}", json=scope, auth=self.auth, timeout=10)
        body = {"name": self.alias, "vCluster": "passthrough"}
        requests.delete(f"{self.url}/gateway/v2/alias-topic", json=body, auth=self.auth, timeout=10)


@pytest.fixture
def gateway_project(
    tmp_path: Path, gateway_url: str, gateway_credentials: tuple[str, str]
) -> Iterator[Callable[..., GatewayProject]]:
    made: list[GatewayProject] = []

    def make(admin_url: str | None = None, password: str | None = None, method: str = "redact") -> GatewayProject:
        suffix = uuid.uuid4().hex[:10]
        alias, physical = f"e2e.{suffix}.gold", f"e2e.{suffix}.customers"
        user, right = gateway_credentials
        files = {
            "stream_project.yml": {
                "apiVersion": "streamt.dev/v1alpha1",
                "project": {"name": "e2e"},
                "runtime": {
                    "kafka": {"bootstrap_servers": "127.0.0.1:9"},
                    "conduktor": {
                        "gateway": {
                            "admin_url": admin_url or gateway_url,
                            "username": user,
                            "password": password or right,
                        }
                    },
                },
                "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
                "sources": [{"name": "customers", "topic": physical, "ownership": {"mode": "external"}}],
                "models": [
                    {
                        "name": f"gold_{suffix}",
                        "materialized": "virtual_topic",
                        "sql": "SELECT * FROM {{ source('customers') }} WHERE tier = 'GOLD'",
                        "advanced": {"topic": {"name": alias}},
                        "security": {"policies": [{"mask": {"column": "email", "method": method}}]},
                    }
                ],
            }
        }
        project = GatewayProject(tmp_path / suffix, alias, physical, gateway_url, (user, right), files)
        project.write()
        made.append(project)
        return project

    yield make
    for project in made:
        project.cleanup()


def outputs(*outcomes: Any) -> list[str]:
    return [json.dumps(o.envelope) + o.stdout + o.stderr for o in outcomes]


def assert_absent(needle: str, *texts: str) -> None:
    for text in texts:
        assert needle not in text


def test_create_unchanged_update_and_status(gateway_project, streamt_cli, tmp_path) -> None:
    project = gateway_project()
    plan_file = tmp_path / "gateway.plan.json"
    plan = streamt_cli("plan", "-p", project.path, "--out", plan_file)
    assert plan.ok, plan.envelope
    (action,) = [a for a in plan.data["actions"] if a["kind"] == "gateway_rule"]
    assert action["action"] == "create" and action["identity"] == project.alias

    first = streamt_cli("apply", "-p", project.path, "--plan", plan_file)
    assert first.ok, first.envelope
    assert first.action_results[project.alias] == "created"
    (alias,) = project.aliases()
    assert alias["spec"]["physicalName"] == project.physical
    live = project.interceptors()
    assert set(live) == {f"{project.alias}--streamt-filter", f"{project.alias}--streamt-mask"}
    sql = live[f"{project.alias}--streamt-filter"]["spec"]
    assert sql["pluginClass"] == SQL_PLUGIN
    assert sql["config"] == {
        "virtualTopic": project.alias,
        "statement": f"SELECT * FROM \"{project.physical}\" WHERE tier = 'GOLD'",
    }
    mask = live[f"{project.alias}--streamt-mask"]["spec"]
    assert mask["pluginClass"] == MASK_PLUGIN
    assert mask["config"]["policies"] == [{"name": "mask email", "fields": ["email"], "rule": {"type": "MASK_ALL"}}]

    status = streamt_cli("status", "-p", project.path)
    (row,) = status.data["gateway_rules"]
    assert row["status"] == "OK", row

    again = streamt_cli("apply", "-p", project.path)
    assert again.ok and set(again.action_results.values()) == {"unchanged"}, again.envelope
    assert again.data["operation_id"] is None

    project.model["sql"] = "SELECT * FROM {{ source('customers') }} WHERE tier = 'PLATINUM'"
    project.write()
    changed = streamt_cli("plan", "-p", project.path)
    (update,) = [a for a in changed.data["actions"] if a["action"] == "update"]
    assert update["identity"] == project.alias
    assert update["evidence"]["changes"] == {f"interceptors.{project.alias}--streamt-filter": "update"}
    assert update["evidence"]["observation"]["spec"]["fingerprint"] != update["evidence"]["desired_fingerprint"]
    drift = streamt_cli("status", "-p", project.path)
    assert drift.data["gateway_rules"][0]["status"] == "DRIFT"
    updated = streamt_cli("apply", "-p", project.path)
    assert updated.ok and updated.action_results[project.alias] == "updated", updated.envelope
    statement = project.interceptors()[f"{project.alias}--streamt-filter"]["spec"]["config"]["statement"]
    assert statement.endswith("WHERE tier = 'PLATINUM'")

    # Dropping the mask policy deletes the rule-owned mask interceptor, nothing else.
    project.model.pop("security")
    project.write()
    unmasked = streamt_cli("apply", "-p", project.path)
    assert unmasked.ok and unmasked.action_results[project.alias] == "updated", unmasked.envelope
    assert set(project.interceptors()) == {f"{project.alias}--streamt-filter"}

    # The password (the devstack's fixed one) is never recorded; "conduktor" otherwise only names plugins.
    password = project.auth[1]
    texts = [*outputs(plan, first, status, again, changed, drift, updated, unmasked), plan_file.read_text()]
    texts.append(project.everything_written())
    assert_absent(password, *[t.replace("io.conduktor.", "") for t in texts])


def test_unsupported_mask_is_a_reviewable_blocker(gateway_project, streamt_cli) -> None:
    project = gateway_project(method="hash")
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and plan.data["is_apply_blocked"], plan.envelope
    assert [b["reason"] for b in plan.data["safety_blockers"]] == ["gateway_unsupported_mask"]
    assert "W131_GATEWAY_MASK_NOT_APPLICABLE" in plan.warning_codes  # validate said so already
    refused = streamt_cli("apply", "-p", project.path)
    assert refused.error_codes == ["E417_SAFETY_BLOCKED"]
    assert f"{project.alias}: use method: redact" in refused.envelope["errors"][0]["suggestion"]
    assert project.aliases() == [] and project.interceptors() == {}


def test_wrong_credentials_are_an_auth_error(gateway_project, streamt_cli) -> None:
    project = gateway_project(password=WRONG_PASSWORD)
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.error_codes == ["E404_AUTH_FAILED"]
    status = streamt_cli("status", "-p", project.path)
    (row,) = status.data["gateway_rules"]
    assert row["status"] == "UNAVAILABLE" and row["error"] == "E404_AUTH_FAILED"
    assert_absent(WRONG_PASSWORD, *outputs(plan, status), project.everything_written())


def test_an_unreachable_gateway_fails_the_plan_closed(gateway_project, streamt_cli) -> None:
    project = gateway_project(admin_url="http://127.0.0.1:9")
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.error_codes == ["E406_CONNECTION_REFUSED"]
    applied = streamt_cli("apply", "-p", project.path)
    assert applied.error_codes == ["E406_CONNECTION_REFUSED"]
    assert not (project.path / ".streamt" / "state" / "default.control.json").exists()


def test_a_live_rule_without_ownership_needs_a_decision(gateway_project, streamt_cli) -> None:
    project = gateway_project()
    body = {
        "kind": "AliasTopic",
        "apiVersion": "gateway/v2",
        "metadata": {"name": project.alias},
        "spec": {"physicalName": "someone.elses.topic"},
    }
    response = requests.put(f"{project.url}/gateway/v2/alias-topic", json=body, auth=project.auth, timeout=10)
    assert response.status_code == 200
    plan = streamt_cli("plan", "-p", project.path)
    assert plan.ok and plan.data["is_apply_blocked"]
    assert [r["identity"] for r in plan.data["ownership_requirements"]] == [project.alias]
    refused = streamt_cli("apply", "-p", project.path)
    assert refused.error_codes == ["E410_OWNERSHIP_REQUIRED"]
    (alias,) = project.aliases()
    assert alias["spec"]["physicalName"] == "someone.elses.topic"  # untouched
    assert project.interceptors() == {}


def test_the_password_never_leaves_memory(gateway_project, streamt_cli, tmp_path) -> None:
    from gateway_stub import serve_in_thread

    server, url = serve_in_thread(users=[{"username": "admin", "password": SENTINEL_PASSWORD, "admin": True}])
    try:
        project = gateway_project(admin_url=url, password=SENTINEL_PASSWORD)
        project.url, project.auth = url, ("admin", SENTINEL_PASSWORD)
        plan_file = tmp_path / "sentinel.plan.json"
        plan = streamt_cli("plan", "-p", project.path, "--out", plan_file)
        applied = streamt_cli("apply", "-p", project.path, "--plan", plan_file)
        assert applied.ok and applied.action_results[project.alias] == "created", applied.envelope
        status = streamt_cli("status", "-p", project.path)
        texts = [*outputs(plan, applied, status), plan_file.read_text(), project.everything_written()]
        assert_absent(SENTINEL_PASSWORD, *texts)
    finally:
        server.shutdown()
        server.server_close()
