"""Benchmark: what one online plan and one apply spend in the ``local`` state backend for N records.

In one process, per size N (default 2,000 and 10,000), five rounds, medians:

* ``plan's state reads`` — what ``plan_online`` does: ``status()`` then ``read_state()``, and the two
  checksums compared;
* ``apply's state writes`` — what an apply of N creates does under the lock: ``begin_operation`` with N
  intended actions, progress ``started`` and ``done`` for all of them (one batch), ``commit`` of N records
  and the new state's checksum.

Nothing is contacted; files go to a temporary directory. Run it with another checkout's interpreter for
that checkout's numbers (its venv imports its own ``streamt``), e.g. ``/path/to/other/.venv/bin/python
bench/local_state_bench.py 2000``. Usage: ``./dev bench local_state_bench [sizes...]``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from streamt.state.local import LocalStateBackend
from streamt.state.records import OwnershipRecord


def run(size: int, rounds: int = 5) -> tuple[float, float]:
    records = [
        OwnershipRecord(
            f"streamt://bench/dev/topic/t{i:05d}",
            "topic",
            f"t{i:05d}",
            f"bench.t{i:05d}",
            "managed",
            "sha256:" + "a" * 64,
            "streamt-kafka",
            {"topic_id": "x" * 22},
        )
        for i in range(size)
    ]
    actions = [
        {"position": i, "action": "create", "kind": "topic", "name": f"t{i:05d}", "identity": f"bench.t{i:05d}"}
        for i in range(size)
    ]
    reads, writes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        backend = LocalStateBackend(project_dir=Path(tmp), project="bench", env="dev")
        for _ in range(rounds):
            started = time.perf_counter()
            with backend.operation_lock():
                control = backend.begin_operation("apply", actions)
                control = backend.record_progress_many(control, list(range(size)), "started")
                control = backend.record_progress_many(control, list(range(size)), "done")
                assert backend.commit(control, records).checksum
            writes.append(time.perf_counter() - started)
            started = time.perf_counter()
            status = backend.status()
            state = backend.read_state()
            assert state is not None and state.checksum == status["checksum"]
            reads.append(time.perf_counter() - started)
    return statistics.median(reads), statistics.median(writes)


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [2000, 10000]
    print(f"{'records':>7}  {'plan reads':>10}  {'apply writes':>12}  load")
    for size in sizes:
        reads, writes = run(size)
        print(f"{size:>7}  {reads:>9.3f}s  {writes:>11.3f}s  {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
