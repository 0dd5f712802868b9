"""Gateway rules keep the provider contract (streamt_testing.contracts), against the documented-API stub."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from streamt.sdk import KIND_GATEWAY_RULE, Artifact
from streamt_gateway.config import ConduktorRuntime
from streamt_gateway.deployers import GatewayRuleDeployer
from streamt_gateway.live import GatewayRuleObserver, GatewayRulePlanner
from streamt_gateway.rule import gateway_rule
from streamt_testing import closed_port
from streamt_testing.contracts import ProviderContract

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


def _rule(alias: str, where: str = "tier = 'GOLD'", method: str = "redact") -> Artifact:
    spec = gateway_rule(alias, alias, f"{alias}.physical", where, [("email", method, [])])
    return Artifact(kind=KIND_GATEWAY_RULE, name=alias, identity=alias, spec=spec, provider="streamt-gateway")


class TestGatewayRuleProvider(ProviderContract):
    @pytest.fixture
    def provider(self) -> Iterator[tuple[GatewayRuleObserver, GatewayRulePlanner, GatewayRuleDeployer]]:
        server, address = serve_in_thread()
        runtime = _Runtime(_Gateway(address))
        yield GatewayRuleObserver(runtime), GatewayRulePlanner(), GatewayRuleDeployer(runtime)
        server.shutdown()
        server.server_close()

    @pytest.fixture
    def unanswered(self) -> tuple[GatewayRuleObserver, GatewayRulePlanner, GatewayRuleDeployer]:
        runtime = _Runtime(_Gateway(f"http://127.0.0.1:{closed_port()}"))
        return GatewayRuleObserver(runtime), GatewayRulePlanner(), GatewayRuleDeployer(runtime)

    @pytest.fixture
    def desired(self) -> Artifact:
        return _rule("orders_masked")

    @pytest.fixture
    def changed(self):
        return lambda artifact: _rule(artifact.identity, where="tier = 'SILVER'")

    @pytest.fixture
    def refused(self) -> Artifact:
        return _rule("orders_tokenized", method="tokenize")  # the Gateway has no tokenizing mask
