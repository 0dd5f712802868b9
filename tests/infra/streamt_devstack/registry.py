"""Apicurio Registry 3.x serving the Confluent-compatible API (``/apis/ccompat/v7``).

Configured to behave like a Confluent registry where streamt relies on it: deletes allowed, and
BACKWARD compatibility enforced on registration (Apicurio enforces nothing until a rule is set,
although its check endpoint defaults to BACKWARD).  Storage is the default in-memory H2, so a
restart starts empty, which is what tests want.
"""

from __future__ import annotations

from . import artifacts, probes, procs
from .config import HOST, STATE_DIR, java_bin_at_least
from .service import Context, Service

CCOMPAT = "/apis/ccompat/v7"


class Registry(Service):
    name = "schema_registry"
    processes = ("schema-registry",)
    start_timeout = 120.0

    def fetch(self, ctx: Context) -> None:
        artifacts.apicurio_home(ctx.log)
        java_bin_at_least(21)  # fail at fetch time, with a clear message

    def start(self, ctx: Context) -> None:
        port = ctx.port("schema_registry", fresh=True)
        management_port = ctx.port("schema_registry_management", fresh=True)
        home = artifacts.apicurio_home(ctx.log)
        work = STATE_DIR / "schema-registry"
        work.mkdir(parents=True, exist_ok=True)
        procs.spawn(
            "schema-registry",
            [
                java_bin_at_least(21),
                "-Xms64m",
                "-Xmx384m",
                "-XX:+UseSerialGC",
                f"-Dquarkus.http.port={port}",
                f"-Dquarkus.http.host={HOST}",
                # The Quarkus management interface is fixed on at build time and would
                # listen on 0.0.0.0:9000: a fixed port (a second stack on the machine fails
                # to start) and not loopback-only. Its host and port are runtime settings.
                f"-Dquarkus.management.port={management_port}",
                f"-Dquarkus.management.host={HOST}",
                # Exactly these keys; other spellings are silently ignored (Apicurio #9116).
                "-Dapicurio.rest.deletion.group.enabled=true",
                "-Dapicurio.rest.deletion.artifact.enabled=true",
                "-Dapicurio.rest.deletion.artifact-version.enabled=true",
                "-Dquarkus.log.console.color=false",
                "-jar",
                str(home / "quarkus-run.jar"),
            ],
            cwd=work,
        )

    def base(self, ctx: Context) -> str:
        return f"http://{HOST}:{ctx.port('schema_registry', fresh=False)}"

    def probe(self, ctx: Context) -> str:
        subjects = probes.http_ok(self.base(ctx) + CCOMPAT + "/subjects")
        if not isinstance(subjects, list):
            raise OSError(f"unexpected /subjects answer: {subjects!r}")
        cfg = probes.http_ok(self.base(ctx) + CCOMPAT + "/config")
        return f"ccompat v7, {len(subjects)} subject(s), global compatibility {cfg.get('compatibilityLevel')}"

    def after_ready(self, ctx: Context) -> None:
        status, body = probes.http("PUT", self.base(ctx) + CCOMPAT + "/config", {"compatibility": "BACKWARD"})
        if status != 200:
            raise RuntimeError(f"could not set global compatibility: {status} {body}")

    def endpoints(self, ctx: Context) -> dict[str, str]:
        return {"schema_registry_url": self.base(ctx) + CCOMPAT}
