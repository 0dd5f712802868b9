"""The Conduktor Gateway admin-API stub (tests/infra/gateway_stub), run as its own process."""

from __future__ import annotations

import sys

from . import probes, procs
from .config import HOST, INFRA_DIR
from .service import Context, Service


class Gateway(Service):
    name = "gateway"
    processes = ("gateway",)
    start_timeout = 20.0

    def start(self, ctx: Context) -> None:
        port = ctx.port("gateway", fresh=True)
        procs.spawn(
            "gateway", [sys.executable, "-m", "gateway_stub", "--host", HOST, "--port", str(port)], cwd=INFRA_DIR
        )

    def url(self, ctx: Context) -> str:
        return f"http://{HOST}:{ctx.port('gateway', fresh=False)}"

    def probe(self, ctx: Context) -> str:
        health = probes.http_ok(self.url(ctx) + "/health")
        if health.get("status") != "UP":
            raise OSError(f"gateway stub health: {health}")
        return "Conduktor Gateway admin API v2 stub " + health["checks"][0]["data"]["version"]

    def endpoints(self, ctx: Context) -> dict[str, str]:
        return {"gateway_url": self.url(ctx)}
