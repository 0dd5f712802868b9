"""Benchmark: observing N Schema Registry subjects (online plan's schema reads) against the devstack registry.

The registry API has one read per subject (no batch read), so what can be cut is the connection
cost and the waiting: ``SchemaObserver.observe`` runs ``POOL_SIZE`` subjects at a time over one
pooled keep-alive session. In the same run, for comparison, the same subjects are read the way the
observer did before: one after another, a new connection per request (``requests.request``).

Per size: N subjects are registered under a unique prefix, observed with an identical schema (the
common plan: no compatibility check needed) and with a compatible change (one compatibility check
per subject), then every subject is deleted (soft, then permanent). ``--pools 8,16,32`` observes with each
of those bounds in the same rounds (the observer's ``POOL_SIZE`` set for the call), ``--no-sequential``
leaves the old shape out, ``--prefix NAME`` chooses the subjects' prefix. ``--registry-pid PID`` (the
registry's JVM) adds, per pooled case, the CPU seconds the registry process and this client process spent
(``/proc/PID/stat`` and ``time.process_time``, medians): whether the registry, the client or neither is the
bound on a machine's cores. Usage:
``./dev bench registry_observe_bench [--rounds N] [--pools A,B] [--no-sequential] [--prefix NAME]
[--registry-pid PID] [sizes...]``
(default 1000, 3 rounds); needs the devstack registry (``./dev stack up --only schema_registry``;
``STREAMT_STACK_ENDPOINTS`` names another endpoints file).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests
import streamt_kafka.observers as observers
import streamt_kafka.registry_live as registry_live
from streamt.artifacts import Artifact
from streamt_kafka.registry_live import POOL_SIZE, RegistryClient, observe_subject

ROOT = Path(__file__).resolve().parent.parent


def schema(version: int) -> str:
    fields = [{"name": "id", "type": "string"}]
    if version > 1:
        fields.append({"name": "note", "type": ["null", "string"], "default": None})
    return json.dumps({"type": "record", "name": "Bench", "fields": fields})


def artifacts(names: list[str], version: int) -> list[Artifact]:
    return [Artifact("schema", n, n, {"subject": n, "schema": schema(version), "format": "avro"}) for n in names]


class Counting:
    """Counts requests sent through a session (or the ``requests`` module) it wraps."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.count = inner, 0

    def request(self, *args: Any, **kwargs: Any) -> Any:
        self.count += 1
        return self.inner.request(*args, **kwargs)


def process_cpu(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 without one)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


CPU: dict[str, float] = {}  # the last pooled call's CPU seconds: registry, client


def pooled(
    url: str, items: list[Artifact], bound: int = POOL_SIZE, registry_pid: int | None = None
) -> tuple[float, int]:
    """The observer as it runs in ``plan``: bounded concurrency over one pooled session (``bound`` at a time)."""
    registry_live.POOL_SIZE = bound  # read when the session is built and when the observer starts its pool
    client = RegistryClient(url)
    counting = Counting(object.__getattribute__(client, "_session"))
    object.__setattr__(client, "_session", counting)
    original = observers.registry_client
    observers.registry_client = lambda runtime: client  # the observer's own client, counted
    try:
        registry, client_cpu = process_cpu(registry_pid), time.process_time()
        started = time.perf_counter()
        observed = observers.SchemaObserver(runtime=None).observe(items)
        elapsed = time.perf_counter() - started
        CPU.update(registry=process_cpu(registry_pid) - registry, client=time.process_time() - client_cpu)
    finally:
        observers.registry_client = original
        registry_live.POOL_SIZE = POOL_SIZE
    assert all(o.status == "present" for o in observed.values())
    return elapsed, counting.count


def sequential(url: str, items: list[Artifact]) -> tuple[float, int]:
    """The previous shape: one subject after another, a new connection per request."""
    client = RegistryClient(url)
    counting = Counting(requests)  # requests.request opens a fresh session (and connection) per call
    object.__setattr__(client, "_session", counting)
    started = time.perf_counter()
    for item in items:
        assert observe_subject(client, item.identity, item.spec["schema"], "avro").status == "present"
    return time.perf_counter() - started, counting.count


def run(
    url: str, size: int, rounds: int, pools: list[int], with_sequential: bool, prefix: str, registry_pid: int | None
) -> None:
    prefix = f"{prefix}-{uuid.uuid4().hex[:8]}"
    names = [f"{prefix}-s{i:05d}-value" for i in range(size)]
    setup = RegistryClient(url)
    try:
        with ThreadPoolExecutor(max_workers=POOL_SIZE) as pool:
            list(pool.map(lambda n: setup.register(n, schema(1), "avro"), names))
        for label, version in (("identical", 1), ("compatible change", 2)):
            items = artifacts(names, version)
            results: dict[str, list[tuple[float, int]]] = {f"pooled x{b}": [] for b in pools}
            cpu: dict[str, list[tuple[float, float]]] = {f"pooled x{b}": [] for b in pools}
            if with_sequential:
                results["sequential"] = []
            for _ in range(rounds):
                for bound in pools:
                    results[f"pooled x{bound}"].append(pooled(url, items, bound, registry_pid))
                    cpu[f"pooled x{bound}"].append((CPU["registry"], CPU["client"]))
                if with_sequential:
                    results["sequential"].append(sequential(url, items))
            medians = {k: statistics.median(s for s, _ in v) for k, v in results.items()}
            columns = "  ".join(f"{k} {medians[k]:>6.2f} s ({v[0][1]} req)" for k, v in results.items())
            ratio = (
                f"  sequential / pooled x{pools[0]} {medians['sequential'] / medians[f'pooled x{pools[0]}']:.1f}x"
                if with_sequential
                else ""
            )
            print(f"{size:>6}  {label:<18} {columns}{ratio}")
            if registry_pid is not None:
                spent = "  ".join(
                    f"{k} registry {statistics.median(r for r, _ in v):.2f} s, "
                    f"client {statistics.median(c for _, c in v):.2f} s"
                    for k, v in cpu.items()
                )
                print(f"{size:>6}  {label:<18} CPU: {spent}  (load {os.getloadavg()[0]:.1f})")
    finally:
        with ThreadPoolExecutor(max_workers=POOL_SIZE) as pool:
            list(pool.map(setup.delete_subject, names))


def main() -> None:
    args = sys.argv[1:]
    valued = ("--rounds", "--pools", "--prefix", "--registry-pid")
    options = {flag: args[args.index(flag) + 1] for flag in valued if flag in args}
    rounds = int(options.get("--rounds", 3))
    pools = [int(b) for b in options.get("--pools", str(POOL_SIZE)).split(",")]
    sizes = [int(a) for i, a in enumerate(args) if a.isdigit() and (i == 0 or args[i - 1] not in valued)]
    endpoints = Path(os.environ.get("STREAMT_STACK_ENDPOINTS", ROOT / ".stack" / "endpoints.json"))
    url = json.loads(endpoints.read_text())["schema_registry_url"]
    print(f"subjects  case  (medians of {rounds}, interleaved)")
    for size in sizes or [1000]:
        pid = int(options["--registry-pid"]) if "--registry-pid" in options else None
        run(url, size, rounds, pools, "--no-sequential" not in args, options.get("--prefix", "bench"), pid)


if __name__ == "__main__":
    main()
