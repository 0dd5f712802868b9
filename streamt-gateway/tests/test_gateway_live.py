"""Observer, planner and deployer against an in-process Gateway stub (tests/infra/gateway_stub)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from streamt.plan.model import ABSENT, CREATE, NOOP, PRESENT, UPDATE, SafetyBlocker
from streamt.sdk import KIND_GATEWAY_RULE, Artifact
from streamt_gateway.config import ConduktorRuntime
from streamt_gateway.deployers import GatewayRuleDeployer
from streamt_gateway.live import GatewayRuleObserver, GatewayRulePlanner, client_for
from streamt_gateway.rule import gateway_rule

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "infra"))
from gateway_stub import serve_in_thread


@attrs.frozen
class _Gateway:
    admin_url: str
    username: str = "admin"
    password: str = "conduktor"
    virtual_cluster: str | None = None


@attrs.frozen
class _Runtime:
    """The one section the Gateway plugin reads: ``runtime.conduktor`` with its ``gateway``."""

    gateway: _Gateway

    def section(self, name: str) -> ConduktorRuntime | None:
        return ConduktorRuntime(gateway=self.gateway) if name == "conduktor" else None  # type: ignore[arg-type]


@pytest.fixture
def url() -> Iterator[str]:
    server, address = serve_in_thread()
    yield address
    server.shutdown()
    server.server_close()


def rule(alias: str, where: str = "tier = 'GOLD'", method: str = "redact") -> Artifact:
    spec = gateway_rule(alias, alias, f"{alias}.physical", where, [("email", method, [])])
    return Artifact(kind=KIND_GATEWAY_RULE, name=alias, identity=alias, spec=spec, provider="streamt-gateway")


def run(url: str, artifacts: list[Artifact]) -> tuple[GatewayRuleObserver, dict[str, list[Any]]]:
    observer = GatewayRuleObserver(_Runtime(_Gateway(url)))
    seen = observer.observe(artifacts)
    planner = GatewayRulePlanner()
    return observer, {a.identity: planner.plan(a, seen[a.identity]) for a in artifacts}


def test_two_gets_whatever_the_number_of_rules_and_create_then_noop(url: str) -> None:
    rules = [rule(f"r{i}") for i in range(5)]
    observer, plans = run(url, rules)
    assert observer.requests == 2
    assert {p[0].action for p in plans.values()} == {CREATE}
    deployer = GatewayRuleDeployer(_Runtime(_Gateway(url)))
    outcomes = deployer.apply(CREATE, [(plans[a.identity][0], a) for a in rules])
    assert {o.status for o in outcomes.values()} == {"done"}
    observer, plans = run(url, rules)
    assert observer.requests == 2 and {p[0].action for p in plans.values()} == {NOOP}
    assert plans["r0"][0].evidence["observation"]["status"] == PRESENT


def test_changed_filter_is_an_update_and_unsupported_mask_a_blocker(url: str) -> None:
    first = rule("a")
    _, plans = run(url, [first])
    GatewayRuleDeployer(_Runtime(_Gateway(url))).apply(CREATE, [(plans["a"][0], first)])
    _, plans = run(url, [rule("a", where="tier = 'X'")])
    (update,) = plans["a"]
    assert update.action == UPDATE and update.evidence["changes"] == {"interceptors.a--streamt-filter": "update"}
    _, plans = run(url, [rule("b", method="tokenize")])
    action, blocker = plans["b"]
    assert action.action == CREATE and isinstance(blocker, SafetyBlocker)
    assert blocker.reason == "gateway_unsupported_mask"
    outcome = GatewayRuleDeployer(_Runtime(_Gateway(url))).apply(CREATE, [(action, rule("b", method="tokenize"))])
    assert outcome["b"].status == "failed" and outcome["b"].error == "GatewayUnsupportedMask"


def test_first_write_refused_is_failed_later_refusal_unknown(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    deployer = GatewayRuleDeployer(_Runtime(_Gateway(url, virtual_cluster="nosuch")))
    bad = rule("c")
    _, plans = run(url, [rule("c")])
    assert plans["c"][0].evidence["observation"]["status"] == ABSENT
    assert deployer.apply(CREATE, [(plans["c"][0], bad)])["c"].status == "failed"  # 404 unknown vCluster

    # The alias PUT succeeds; the interceptor is refused (unknown plugin class): the rule is partial.
    import streamt_gateway.deployers as deployers

    real = deployers.interceptor_resource
    monkeypatch.setattr(
        deployers,
        "interceptor_resource",
        lambda *a: {**real(*a), "spec": {**real(*a)["spec"], "pluginClass": "no.such.Plugin"}},
    )
    partial = rule("d")
    _, plans = run(url, [partial])
    outcome = GatewayRuleDeployer(_Runtime(_Gateway(url))).apply(CREATE, [(plans["d"][0], partial)])
    assert outcome["d"].status == "unknown" and outcome["d"].error == "HTTP400"


def test_rollback_deletes_only_the_created_rule(url: str) -> None:
    keep, made = rule("keep"), rule("made")
    _, plans = run(url, [keep, made])
    deployer = GatewayRuleDeployer(_Runtime(_Gateway(url)))
    deployer.apply(CREATE, [(plans["keep"][0], keep), (plans["made"][0], made)])
    assert deployer.rollback(plans["made"][0], made)
    _, after = run(url, [keep, made])
    assert after["keep"][0].action == NOOP and after["made"][0].action == CREATE
    assert not deployer.rollback(after["keep"][0], keep)  # never a noop/update


def test_interceptors_carry_the_owner_marker_the_observer_reports(url: str) -> None:
    owned, legacy = rule("owned"), rule("legacy")
    _, plans = run(url, [owned, legacy])
    deployer = GatewayRuleDeployer(_Runtime(_Gateway(url)))
    deployer.apply(CREATE, [(plans["owned"][0], owned)], owner="shop/dev")
    deployer.apply(CREATE, [(plans["legacy"][0], legacy)])  # before the marker: no owner known
    observer = GatewayRuleObserver(_Runtime(_Gateway(url)))
    seen = observer.observe([owned, legacy])
    assert seen["owned"].spec["owner"] == {"project": "shop", "environment": "dev"}
    assert "owner" not in seen["legacy"].spec
    _, interceptors = observer.read(client_for(_Runtime(_Gateway(url))))
    comments = {i["metadata"]["name"]: i["spec"].get("comment") for i in interceptors}
    assert comments["owned--streamt-filter"] == "managed by streamt (owner: shop/dev)"
    assert comments["legacy--streamt-mask"] == "managed by streamt"
    # The marker is not part of the compared aggregate: the rule stays a no-op for its owner.
    assert GatewayRulePlanner().plan(owned, seen["owned"])[0].action == NOOP
