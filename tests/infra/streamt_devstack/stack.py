"""Orchestration: up / down / status over the service modules.

Independent services start in parallel threads (on 2 cores the JVMs overlap their class
loading with each other's I/O waits); a service waits only for the services it ``needs``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Iterable

from . import artifacts, procs
from .config import ENDPOINT_KEYS, ENDPOINTS_FILE, LOG_DIR, STATE_DIR
from .connect import Connect
from .docker import Docker
from .flink import Flink
from .gateway import Gateway
from .kafka import Kafka
from .postgres import Postgres
from .registry import Registry
from .service import Context, Service

SERVICES: dict[str, Service] = {
    s.name: s for s in (Kafka(), Postgres(), Registry(), Connect(), Flink(), Gateway(), Docker())
}
ALIASES = {
    "registry": "schema_registry",
    "schema-registry": "schema_registry",
    "sr": "schema_registry",
    "pg": "postgres",
    "postgresql": "postgres",
    "gateway-stub": "gateway",
    "dockerd": "docker",
}


class StackError(RuntimeError):
    pass


_local = threading.local()


@contextlib.contextmanager
def locked():
    """Serialise up/down across processes: several pytest sessions may share one .stack/."""
    if getattr(_local, "held", False):
        yield
        return
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    with open(STATE_DIR / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        _local.held = True
        try:
            yield
        finally:
            _local.held = False
            fcntl.flock(f, fcntl.LOCK_UN)


LEASE_DIR = STATE_DIR / "leases"


def acquire_lease(pid: int | None = None) -> None:
    """A test session announces itself; the last one out stops what sessions auto-started."""
    LEASE_DIR.mkdir(parents=True, exist_ok=True)
    (LEASE_DIR / str(pid or os.getpid())).write_text(str(time.time()))


def release_lease(pid: int | None = None, log: Callable[[str], None] = print) -> list[str]:
    with locked():
        (LEASE_DIR / str(pid or os.getpid())).unlink(missing_ok=True)
        live = []
        for lease in LEASE_DIR.glob("*") if LEASE_DIR.exists() else []:
            if lease.name.isdigit() and os.path.exists(f"/proc/{lease.name}"):
                live.append(lease.name)
            else:
                lease.unlink(missing_ok=True)
        ctx = Context(log)
        auto = ctx.get("autostarted", [])
        if live or not auto:
            return []
        down(auto, log=log)
        ctx = Context(log)
        ctx.set("autostarted", [])
        return auto


def select(only: Iterable[str] | None, *, with_needs: bool) -> list[Service]:
    if not only:
        return list(SERVICES.values())
    names: list[str] = []
    for raw in only:
        n = ALIASES.get(raw.strip().lower(), raw.strip().lower())
        if n not in SERVICES:
            raise StackError(f"unknown service '{raw}' (known: {', '.join(SERVICES)})")
        names.append(n)
    if with_needs:
        for n in list(names):
            for dep in SERVICES[n].needs:
                if dep not in names:
                    names.insert(0, dep)
    return [SERVICES[n] for n in SERVICES if n in names]


def _wait_ready(svc: Service, ctx: Context, deadline: float) -> str:
    last: Exception | None = None
    while time.monotonic() < deadline:
        dead = svc.dead_process()
        if dead:
            raise StackError(
                f"{svc.name}: process '{dead}' exited during start. Last log lines "
                f"({procs.logfile(dead)}):\n{procs.tail(procs.logfile(dead), 30)}"
            )
        try:
            return svc.probe_started(ctx)
        except Exception as e:
            last = e
        time.sleep(0.5)
    logs = "\n".join(f"--- {p}:\n{procs.tail(procs.logfile(p), 20)}" for p in svc.processes)
    raise StackError(f"{svc.name}: not ready after {svc.start_timeout:.0f}s (last probe: {last})\n{logs}")


def up(only: Iterable[str] | None = None, log: Callable[[str], None] = print, *, autostart: bool = False) -> dict:
    """Start the services (idempotent).

    ``autostart`` marks services newly started here as owned by test sessions (stopped when the
    last session ends); an explicit ``up`` (the CLI) instead takes them over for the user.
    """
    with locked():
        return _up(only, log, autostart)


def _up(only, log, autostart) -> dict:
    STATE_DIR.mkdir(parents=True, exist_ok=True)
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    ctx = Context(log)
    services = select(only, with_needs=True)
    t0 = time.monotonic()

    # Artifacts first, in parallel (Maven, PyPI and the Apicurio archive are independent).
    errors: dict[str, BaseException] = {}
    fetchers = []
    for svc in services:

        def run(svc=svc):
            try:
                svc.fetch(ctx)
            except BaseException as e:
                errors[svc.name] = e

        t = threading.Thread(target=run, name=f"fetch-{svc.name}")
        t.start()
        fetchers.append(t)
    for t in fetchers:
        t.join()
    if errors:
        raise StackError("fetch failed:\n" + "\n".join(f"{k}: {v}" for k, v in errors.items()))
    artifacts.verify_present()
    t_fetch = time.monotonic() - t0

    ready = {s.name: threading.Event() for s in services}
    timings: dict[str, float] = {}
    details: dict[str, str] = {}

    def bring_up(svc: Service) -> None:
        try:
            for dep in svc.needs:
                if dep in ready:
                    ready[dep].wait()
                    if dep in errors:
                        raise StackError(f"{svc.name}: needs {dep}, which failed")
            start = time.monotonic()
            if svc.running():
                try:
                    details[svc.name] = "already running: " + svc.probe(ctx)
                    timings[svc.name] = 0.0
                    return
                except Exception:
                    log(f"[up] {svc.name}: running but not answering; restarting")
            if svc.any_running() or svc.dead_process():
                svc.stop()
            log(f"[up] starting {svc.name}")
            svc.start(ctx)
            _wait_ready(svc, ctx, time.monotonic() + svc.start_timeout)
            svc.after_ready(ctx)
            details[svc.name] = svc.probe(ctx)
            timings[svc.name] = time.monotonic() - start
            log(f"[up] {svc.name} ready in {timings[svc.name]:.1f}s: {details[svc.name]}")
        except BaseException as e:
            errors[svc.name] = e
        finally:
            ready[svc.name].set()

    threads = [threading.Thread(target=bring_up, args=(s,), name=f"up-{s.name}") for s in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    endpoints = write_endpoints(ctx)
    owned = set(ctx.get("autostarted", []))
    if autostart:
        owned |= {name for name, t in timings.items() if t > 0}
    else:
        owned -= {s.name for s in services}
    ctx.set("autostarted", sorted(owned))
    if errors:
        raise StackError("\n\n".join(f"[{k}] {v}" for k, v in errors.items()))
    total = time.monotonic() - t0
    timings_rec = ctx.get("last_up", {})
    timings_rec.update(
        {
            "total_s": round(total, 1),
            "fetch_s": round(t_fetch, 1),
            "services_s": {k: round(v, 1) for k, v in timings.items()},
        }
    )
    ctx.set("last_up", timings_rec)
    log(f"[up] stack ready in {total:.1f}s (artifacts {t_fetch:.1f}s); endpoints in {ENDPOINTS_FILE}")
    return endpoints


def write_endpoints(ctx: Context) -> dict:
    """All keys, always; a service that is not running has ``null``."""
    endpoints: dict[str, str | None] = {k: None for k in ENDPOINT_KEYS}
    for svc in SERVICES.values():
        if svc.running():
            endpoints.update(svc.endpoints(ctx))
    ENDPOINTS_FILE.parent.mkdir(parents=True, exist_ok=True)
    tmp = ENDPOINTS_FILE.with_suffix(".tmp")
    tmp.write_text(json.dumps(endpoints, indent=2) + "\n")
    tmp.replace(ENDPOINTS_FILE)
    return endpoints


def down(only: Iterable[str] | None = None, log: Callable[[str], None] = print) -> None:
    with locked():
        _down(only, log)


def _down(only, log) -> None:
    ctx = Context(log)
    services = select(only, with_needs=False)
    # Dependents stop before what they depend on (Connect before Kafka); the rest in parallel.
    dependents = [s for s in services if s.needs]
    others = [s for s in services if not s.needs]
    for group in (dependents, others):
        threads = []
        for svc in group:

            def run(svc=svc):
                stopped = svc.stop()
                if stopped:
                    log(f"[down] stopped {svc.name} ({', '.join(stopped)})")

            t = threading.Thread(target=run)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()
    # Anything else with a PID file (a process of a renamed service, say) goes too.
    if not only and procs.PID_DIR.exists():
        for pf in procs.PID_DIR.glob("*.pid"):
            if procs.stop(pf.stem):
                log(f"[down] stopped stray process {pf.stem}")
    write_endpoints(ctx)


def status(only: Iterable[str] | None = None) -> list[dict]:
    ctx = Context(lambda _m: None)
    rows = []
    for svc in select(only, with_needs=False):
        row = {
            "service": svc.name,
            "running": svc.running(),
            "ready": False,
            "detail": "",
            "rss_mb": None,
            "endpoints": {},
        }
        if svc.running():
            row["endpoints"] = svc.endpoints(ctx)
            row["rss_mb"] = round(svc.rss() / (1 << 20))
            try:
                row["detail"] = svc.probe(ctx)
                row["ready"] = True
            except Exception as e:
                row["detail"] = f"not answering: {e}"
        elif svc.any_running():
            row["detail"] = "partly running: " + ", ".join(p for p in svc.processes if procs.alive(p))
        else:
            row["detail"] = "stopped"
        rows.append(row)
    return rows
