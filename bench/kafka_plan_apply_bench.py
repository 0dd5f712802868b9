"""Benchmark: online plan and apply of 100 / 1,000 / 2,000 topics against the devstack broker.

Per size, in one process (the CLI's own code path, without the interpreter start-up): compile a
project of N managed topic models (each declaring ``retention.ms``), then

* ``plan (absent)``   — observe N absent topics and plan N creates;
* ``apply``           — plan again under the state lock, create in batches, commit local state;
* ``plan (existing)`` — observe N existing topics: the number to beat is < 5 s at 2,000 with a
  constant number of admin requests.

Admin requests are counted per phase by wrapping ``RequestCounter.add`` (every batched admin call
goes through it). Topics are deleted afterwards. Usage: ``./dev bench kafka_plan_apply_bench [sizes...]``;
needs the devstack (``./dev stack up --only kafka``).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

from streamt.testing import write_project
from streamt_kafka.topics_live import RequestCounter

ROOT = Path(__file__).resolve().parent.parent
REQUESTS: Counter[str] = Counter()
_original_add = RequestCounter.add


def _counting_add(self: RequestCounter, phase: str) -> None:
    REQUESTS[phase] += 1
    _original_add(self, phase)


RequestCounter.add = _counting_add  # type: ignore[method-assign]


def project(root: Path, bootstrap: str, prefix: str, size: int) -> Path:
    models = [
        {
            "name": f"t{i:05d}",
            "advanced": {"topic": {"name": f"{prefix}.t{i:05d}", "config": {"retention.ms": 3600000}}},
        }
        for i in range(size)
    ]
    files = {
        "stream_project.yml": {
            "project": {"name": "bench"},
            "runtime": {"kafka": {"bootstrap_servers": bootstrap}},
            "defaults": {"topic": {"partitions": 1, "replication_factor": 1}},
            "models": models,
        }
    }
    return write_project(root, files)


def phase(name: str, fn):  # type: ignore[no-untyped-def]
    REQUESTS.clear()
    started = time.perf_counter()
    result = fn()
    return result, {"phase": name, "seconds": round(time.perf_counter() - started, 2), "requests": dict(REQUESTS)}


def run(size: int, bootstrap: str) -> list[dict]:
    from streamt.apply.executor import deployers_by_kind, execute
    from streamt.compile import load_and_compile
    from streamt.plan.online import open_backend, plan_online
    from streamt.plugins import get_plugins

    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        loaded = load_and_compile(project(Path(tmp) / "p", bootstrap, prefix, size), None)
        backend = open_backend(loaded.project, "write")
        plugins = get_plugins()
        rows = []
        (plan, _), row = phase("plan (absent)", lambda: plan_online(loaded.project, loaded.compiled, backend))
        assert plan.counts["create"] == size
        rows.append(row)

        def apply() -> object:
            with backend.operation_lock():
                backend.require_clear()
                fresh, _ = plan_online(loaded.project, loaded.compiled, backend)
                artifacts = {(a.kind, a.identity): a for a in loaded.compiled.artifacts}
                return execute(fresh, artifacts, deployers_by_kind(plugins, loaded.project.runtime), backend)

        report, row = phase("apply", apply)
        assert all(result == "created" for _, result in report.results)  # type: ignore[attr-defined]
        rows.append(row)
        (plan, _), row = phase("plan (existing)", lambda: plan_online(loaded.project, loaded.compiled, backend))
        assert plan.counts["noop"] == size, plan.counts
        rows.append(row)
    _cleanup(bootstrap, prefix)
    return [dict(r, topics=size) for r in rows]


def _cleanup(bootstrap: str, prefix: str) -> None:
    from kafka import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    names = [t for t in admin.list_topics() if t.startswith(prefix + ".")]
    for start in range(0, len(names), 500):
        admin.delete_topics(names[start : start + 500], raise_errors=False)
    admin.close()


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [100, 1000, 2000]
    bootstrap = json.loads((ROOT / ".stack" / "endpoints.json").read_text())["kafka_bootstrap"]
    print(f"{'topics':>6}  {'phase':<16} {'seconds':>7}  requests")
    for size in sizes:
        for row in run(size, bootstrap):
            print(f"{row['topics']:>6}  {row['phase']:<16} {row['seconds']:>7}  {row['requests']}")


if __name__ == "__main__":
    main()
