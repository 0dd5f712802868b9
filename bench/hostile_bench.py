"""Benchmark: hostile project shapes must cost linear time (issue 12).

* ``keys``: ``validate`` on a project with N unknown top-level keys, legacy (one W401 each) and strict
  (``apiVersion``; one E501 each). Every finding is located (file:line:col), which used to rescan the
  mapping (and, in strict mode, re-parse the file) per finding: quadratic.
* ``chain``: ``lineage`` (ASCII tree) of a valid N-model chain; the tree walk used to recurse once per
  level.

Each point runs in a fresh process (what a user pays), best of three. Doubling N should roughly double
the time. Usage: ``./dev bench hostile_bench [keys|chain]``.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = 'project: {name: bench}\nruntime: {kafka: {bootstrap_servers: "x:1"}}\n'
FLINK = "runtime: {kafka: {bootstrap_servers: 'x:1'}, flink: {default: f, clusters: {f: {rest_url: 'http://x:1'}}}}\n"


def keys_project(root: Path, count: int, strict: bool) -> None:
    root.mkdir(parents=True)
    text = ("apiVersion: streamt.dev/v1alpha1\n" if strict else "") + HEAD
    (root / "stream_project.yml").write_text(text + "".join(f"k{i}: 1\n" for i in range(count)))


def chain_project(root: Path, length: int) -> None:
    root.mkdir(parents=True)
    lines = ["project: {name: bench}", FLINK.rstrip("\n"), "sources: [{name: s0, topic: t0}]", "models:"]
    lines.append("  - {name: m0, sql: \"SELECT a FROM {{ source('s0') }}\"}")
    lines += [f"  - {{name: m{i}, sql: \"SELECT a FROM {{{{ ref('m{i - 1}') }}}}\"}}" for i in range(1, length)]
    (root / "stream_project.yml").write_text("\n".join(lines) + "\n")


def best_of_three(argv: list[str]) -> float:
    streamt = Path(sys.executable).with_name("streamt")
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([str(streamt), "-o", "json", *argv], capture_output=True, check=False)
        best = min(best, time.perf_counter() - started)
    return best


def main(which: list[str]) -> None:
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        if "keys" in which:
            print(f"{'unknown keys':>13} {'mode':>7} {'wall s':>8}")
            for count in (5_000, 10_000, 20_000):
                for strict in (False, True):
                    root = Path(tmp) / f"keys-{count}-{strict}"
                    keys_project(root, count, strict)
                    wall = best_of_three(["validate", "-p", str(root)])
                    print(f"{count:>13} {'strict' if strict else 'legacy':>7} {wall:>8.2f}")
        if "chain" in which:
            print(f"{'chain models':>13} {'wall s':>8}")
            for length in (250, 500, 1000):
                root = Path(tmp) / f"chain-{length}"
                chain_project(root, length)
                print(f"{length:>13} {best_of_three(['lineage', '-p', str(root)]):>8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["keys", "chain"])
