"""Reviewed removal of one exact Gateway rule against the devstack's Gateway admin API v2 stub.

A rule with a filter is applied, its model is replaced by a `lifecycle.gateway_rule_removals`
tombstone copied from the compiled artifact, and the removal goes through `plan --out` +
`apply --plan --force`: exactly the alias and the owned interceptor go, the ownership record with
them; a repeat is an assessed no-op without a serial advance. Tampered and stale plans, a missing
`--force`, and a rule streamt never owned are refused with nothing deleted.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

requests = pytest.importorskip("requests")

pytestmark = [pytest.mark.gateway]


@attrs.define
class Rule:
    path: Path
    model: str
    alias: str
    physical: str
    url: str
    auth: tuple[str, str]
    files: dict[str, Any]

    def write(self) -> None:
        from streamt_testing import write_project

        write_project(self.path, self.files)

    def aliases(self) -> list[Any]:
        r = requests.get(f"{self.url}/gateway/v2/alias-topic", auth=self.auth, timeout=10)
        return [a for a in r.json() if a["metadata"]["name"] == self.alias]

    def interceptors(self) -> list[str]:
        r = requests.get(f"{self.url}/gateway/v2/interceptor", auth=self.auth, timeout=10)
        return sorted(i["metadata"]["name"] for i in r.json() if i["metadata"]["name"].startswith(self.alias + "--"))

    def state(self) -> dict[str, Any]:
        return json.loads((self.path / ".streamt" / "state" / "default.json").read_text())

    def tombstone(self) -> None:
        """Replace the model by a tombstone whose prior artifact is the compiled rule, unchanged."""
        from streamt.compile import load_and_compile

        (rule,) = [a for a in load_and_compile(self.path, None).compiled.artifacts if a.kind == "gateway_rule"]
        project = self.files["stream_project.yml"]
        project["models"] = []
        project["lifecycle"] = {"gateway_rule_removals": [{"logical_owner": self.model, "prior_artifact": rule.spec}]}
        self.write()


@pytest.fixture
def rule(tmp_path: Path, gateway_url: str, gateway_credentials: tuple[str, str]) -> Iterator[Rule]:
    suffix = uuid.uuid4().hex[:10]
    model, alias, physical = f"gold_{suffix}", f"e2e.{suffix}.gold", f"e2e.{suffix}.customers"
    user, password = gateway_credentials
    files = {
        "stream_project.yml": {
            "apiVersion": "streamt.dev/v1alpha1",
            "project": {"name": "gwrm"},
            "runtime": {
                "kafka": {"bootstrap_servers": "127.0.0.1:9"},
                "conduktor": {"gateway": {"admin_url": gateway_url, "username": user, "password": password}},
            },
            "deployment_state": {"backend": "local", "lock_timeout_seconds": 2},
            "sources": [{"name": "customers", "topic": physical, "ownership": {"mode": "external"}}],
            "models": [
                {
                    "name": model,
                    "materialized": "virtual_topic",
                    "sql": "SELECT * FROM {{ source('customers') }} WHERE tier = 'GOLD'",
                    "advanced": {"topic": {"name": alias}},
                }
            ],
        }
    }
    made = Rule(tmp_path / "p", model, alias, physical, gateway_url, gateway_credentials, files)
    made.write()
    yield made
    for name in made.interceptors():
        body = {"vCluster": "passthrough"}
        requests.delete(f"{gateway_url}/gateway/v2/interceptor/{name}", json=body, auth=made.auth, timeout=10)
    body = {"name": alias, "vCluster": "passthrough"}
    requests.delete(f"{gateway_url}/gateway/v2/alias-topic", json=body, auth=made.auth, timeout=10)


def test_reviewed_removal_deletes_exactly_the_rule_and_its_record_and_repeats_as_a_no_op(
    rule: Rule, streamt_cli: Any, tmp_path: Path
) -> None:
    assert streamt_cli("apply", "-p", rule.path).ok
    assert rule.aliases() and rule.interceptors() == [f"{rule.alias}--streamt-filter"]
    resource = f"streamt://gwrm/default/gateway_rule/{rule.model}"
    assert [r["resource_id"] for r in rule.state()["resources"]] == [resource]
    serial = rule.state()["serial"]

    rule.tombstone()
    plan_file = tmp_path / "removal.plan.json"
    planned = streamt_cli("plan", "-p", rule.path, "--out", plan_file)
    assert planned.ok, planned.envelope
    (delete,) = [a for a in planned.data["actions"] if a["action"] == "delete"]
    assert delete["kind"] == "gateway_rule_removal" and delete["identity"] == rule.model
    assert delete["evidence"]["requires"] == ["reviewed_plan", "force"]
    binding = delete["evidence"]["removal"]
    assert binding["alias"] == rule.alias and binding["prior_artifact_checksum"].startswith("sha256:")
    assert binding["current_fingerprint"] != binding["desired_absence_fingerprint"]
    assert planned.data["counts"]["delete"] == 1

    # A reviewed plan without --force, and a tampered plan file, change nothing.
    unforced = streamt_cli("apply", "-p", rule.path, "--plan", plan_file)
    assert unforced.error_codes == ["E900_USAGE_ERROR"]
    tampered = tmp_path / "tampered.plan.json"
    tampered.write_text(plan_file.read_text().replace(rule.alias, rule.alias + "x"))
    assert streamt_cli("apply", "-p", rule.path, "--plan", tampered, "--force").error_codes == [
        "E408_PLAN_FILE_INVALID"
    ]
    assert rule.aliases() and rule.interceptors()

    removed = streamt_cli("apply", "-p", rule.path, "--plan", plan_file, "--force")
    assert removed.ok, removed.envelope
    assert removed.action_results[rule.model] == "deleted"
    assert rule.aliases() == [] and rule.interceptors() == []
    state = rule.state()
    assert state["resources"] == [] and state["serial"] == serial + 1

    # The same tombstone again: nothing live, nothing recorded -> an assessed no-op, serial unchanged.
    again_file = tmp_path / "again.plan.json"
    again = streamt_cli("plan", "-p", rule.path, "--out", again_file)
    assert again.ok and again.data["counts"]["delete"] == 0, again.envelope
    (fulfilled,) = [a for a in again.data["actions"] if a["kind"] == "gateway_rule_removal"]
    assert fulfilled["summary"] == "tombstone fulfilled: you may delete it from the YAML"
    repeat = streamt_cli("apply", "-p", rule.path, "--plan", again_file)
    assert repeat.ok, repeat.envelope
    assert rule.state()["serial"] == serial + 1
    # Fulfilled, the tombstone is inert: a direct apply proceeds (and has nothing to do).
    direct = streamt_cli("apply", "-p", rule.path)
    assert direct.ok and set(direct.action_results.values()) == {"unchanged"}, direct.envelope
    assert rule.state()["serial"] == serial + 1


def test_a_stale_plan_and_a_rule_without_ownership_are_refused(rule: Rule, streamt_cli: Any, tmp_path: Path) -> None:
    assert streamt_cli("apply", "-p", rule.path).ok
    rule.tombstone()
    plan_file = tmp_path / "removal.plan.json"
    assert streamt_cli("plan", "-p", rule.path, "--out", plan_file).ok
    # Someone changes the live filter after the review: the fresh replan differs from the reviewed one.
    name = f"{rule.alias}--streamt-filter"
    live = requests.get(f"{rule.url}/gateway/v2/interceptor", auth=rule.auth, timeout=10).json()
    (item,) = [i for i in live if i["metadata"]["name"] == name]
    item["spec"]["config"]["statement"] = item["spec"]["config"]["statement"].replace("GOLD", "SILVER")
    item.pop("status", None)
    put = requests.put(f"{rule.url}/gateway/v2/interceptor", json=item, auth=rule.auth, timeout=10)
    assert put.status_code == 200, put.text
    stale = streamt_cli("apply", "-p", rule.path, "--plan", plan_file, "--force")
    assert stale.error_codes == ["E409_PLAN_STALE"]
    assert rule.aliases() and rule.interceptors() == [name]
    # A fresh plan sees the drift: a blocker, never a delete.
    drift = streamt_cli("plan", "-p", rule.path)
    assert [b["reason"] for b in drift.data["safety_blockers"]] == ["gateway_rule_removal_drift"]

    # Without the ownership record (state removed by hand), the live rule is not streamt's to delete.
    (rule.path / ".streamt" / "state" / "default.json").unlink()
    unowned = streamt_cli("plan", "-p", rule.path)
    assert [r["kind"] for r in unowned.data["ownership_requirements"]] == ["gateway_rule_removal"]
    assert unowned.data["safety_blockers"] == []
    unowned_file = tmp_path / "unowned.plan.json"
    assert streamt_cli("plan", "-p", rule.path, "--out", unowned_file).ok
    refused = streamt_cli("apply", "-p", rule.path, "--plan", unowned_file, "--force")
    assert refused.error_codes == ["E410_OWNERSHIP_REQUIRED"]
    assert rule.aliases() and rule.interceptors() == [name]


def test_allow_destructive_stands_in_for_force_but_not_for_the_reviewed_plan(
    rule: Rule, streamt_cli: Any, tmp_path: Path
) -> None:
    assert streamt_cli("apply", "-p", rule.path).ok
    rule.files["stream_project.yml"]["safety"] = {"allow_destructive": True}
    rule.tombstone()
    assert streamt_cli("apply", "-p", rule.path).error_codes == ["E418_REVIEWED_PLAN_REQUIRED"]
    plan_file = tmp_path / "removal.plan.json"
    planned = streamt_cli("plan", "-p", rule.path, "--out", plan_file)
    (delete,) = [a for a in planned.data["actions"] if a["action"] == "delete"]
    assert delete["evidence"]["requires"] == ["reviewed_plan"]
    removed = streamt_cli("apply", "-p", rule.path, "--plan", plan_file)
    assert removed.ok, removed.envelope
    assert rule.aliases() == [] and rule.interceptors() == []
