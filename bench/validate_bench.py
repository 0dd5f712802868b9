"""Benchmark: ``streamt validate`` wall time and peak memory on synthetic 100 / 1,000 / 5,000-model projects.

Projects mix chains and fan-outs, use Jinja ``ref()``/``source()`` calls and split models over many
files. Each size runs in a fresh process (what a user pays), best of three; peak memory is the
child's max RSS. Usage: ``./dev bench validate_bench [sizes...]``.
"""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PER_FILE = 50


def generate(root: Path, models: int) -> None:
    (root / "models").mkdir(parents=True)
    (root / "sources").mkdir()
    (root / "stream_project.yml").write_text(
        "project: {name: bench}\nruntime:\n  kafka: {bootstrap_servers: 'localhost:9092'}\n"
        "  flink: {default: local, clusters: {local: {rest_url: 'http://localhost:8082'}}}\n"
    )
    sources = max(1, models // 50)
    (root / "sources" / "all.yml").write_text(
        "sources:\n"
        + "".join(
            f"  - name: src_{i}\n    topic: bench.src.{i}\n    columns:\n      - {{name: id, type: STRING}}\n"
            f"      - {{name: amount, type: BIGINT}}\n"
            for i in range(sources)
        )
    )
    for start in range(0, models, PER_FILE):
        lines = ["models:"]
        for i in range(start, min(models, start + PER_FILE)):
            if i % 10 == 0:  # chain heads read a source
                upstream = f'{{{{ source("src_{i % sources}") }}}}'
            elif i % 10 < 7:  # chains
                upstream = f'{{{{ ref("m_{i - 1}") }}}}'
            else:  # fan-out from the chain head
                upstream = f'{{{{ ref("m_{i - i % 10}") }}}}'
            sql = (
                f"SELECT id, SUM(amount) AS amount FROM {upstream} GROUP BY id"
                if i % 3 == 0
                else (f"SELECT id, amount FROM {upstream} WHERE amount > {i}")
            )
            lines += [
                f"  - name: m_{i}",
                f"    description: model {i}",
                "    materialized: flink",
                f"    sql: '{sql}'",
                "    advanced: {flink: {state_ttl_ms: 60000}, topic: {partitions: 3}}",
            ]
        (root / "models" / f"part_{start // PER_FILE:04d}.yml").write_text("\n".join(lines) + "\n")


# Core alone: load + core validation, no plugin hooks (the streamt-flink plugin's SQL analysis is measured
# separately by the full CLI run).
_CORE = (
    "import sys; from streamt.project import load_project; from streamt.validation import validate_project; "
    "r = validate_project(load_project(sys.argv[1]), plugins=False); sys.exit(1 if r.errors else 0)"
)


def measure(root: Path, core_only: bool) -> tuple[float, float]:
    streamt = Path(sys.executable).with_name("streamt")
    command = (
        [sys.executable, "-c", _CORE, str(root)]
        if core_only
        else [str(streamt), "-o", "json", "validate", "-p", str(root)]
    )
    best = float("inf")
    peak_kb = 0
    for _ in range(3):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"validate failed: {done.stdout[:500]!r}")
        best = min(best, elapsed)
        peak_kb = max(peak_kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return best, peak_kb / 1024


def main(sizes: list[int]) -> None:
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    print(f"{'models':>7} {'mode':>10} {'wall s':>8} {'peak MB':>8} {'ms/model':>9}")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            generate(root, size)
            for mode in ("core", "cli+plugins"):
                wall, peak = measure(root, core_only=mode == "core")
                print(f"{size:>7} {mode:>10} {wall:>8.2f} {peak:>8.0f} {wall / size * 1000:>9.3f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 1000, 5000])
