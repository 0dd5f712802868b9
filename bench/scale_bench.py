"""Benchmark: how ``validate``, ``compile``, ``compile --dry-run`` and ``plan --offline`` grow, 100 to 10,000 models.

Same synthetic projects as ``validate_bench`` / ``compile_bench`` (chains and fan-outs, Jinja refs, every model a
Flink job with its topic). Each command runs in a fresh process; runs of every column are interleaved round by round,
so a shared machine's load hits all columns alike — compare the ratios, not the absolute seconds. Per run: wall time,
user+system CPU and max RSS of that child (``wait4``); the table gives medians.

Columns: ``ours`` (this checkout's ``streamt``); ``base`` when ``--base PATH`` names another ``streamt`` executable
(e.g. a ``git worktree`` of an earlier commit with its own venv; a second ``--base`` adds ``base2``, and so on);
``peer`` when ``STREAMT_PEER`` names the early public streamt's executable (its compile takes ``-o``, and it has no
offline plan: that row is skipped for it).

Usage: ``./dev bench scale_bench [--rounds N] [--base PATH] [sizes...]`` (default sizes 100 1000 5000 10000).
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from validate_bench import generate  # the shared synthetic-project generator

Argv = Callable[[Path, Path], list[str] | None]


def ours_argv(exe: str) -> dict[str, Argv]:
    return {
        "validate": lambda root, out: [exe, "-o", "json", "validate", "--project-dir", str(root)],
        "compile": lambda root, out: [
            exe,
            "-o",
            "json",
            "compile",
            "--project-dir",
            str(root),
            "--output-dir",
            f"{out}",
        ],
        "compile --dry-run": lambda root, out: [exe, "-o", "json", "compile", "--dry-run", "--project-dir", str(root)],
        "plan --offline": lambda root, out: [exe, "-o", "json", "plan", "--offline", "--project-dir", str(root)],
    }


def peer_argv(exe: str) -> dict[str, Argv]:
    # The early streamt runs from inside the project and names the output directory with -o.
    return {
        "validate": lambda root, out: [exe, "validate", "--project-dir", str(root)],
        "compile": lambda root, out: [exe, "compile", "--project-dir", str(root), "-o", str(out)],
        "compile --dry-run": lambda root, out: [exe, "compile", "--dry-run", "--project-dir", str(root)],
        "plan --offline": lambda root, out: None,
    }


def run_once(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and max RSS in MB of one fresh process."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    if status:
        raise SystemExit(f"failed ({status}): {' '.join(argv)}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(sizes: list[int], rounds: int, bases: list[str]) -> None:
    columns = {"ours": ours_argv(str(Path(sys.executable).with_name("streamt")))}
    for number, base in enumerate(bases, start=1):
        columns["base" if number == 1 else f"base{number}"] = ours_argv(base)
    if os.environ.get("STREAMT_PEER"):
        columns["peer"] = peer_argv(os.environ["STREAMT_PEER"])
    print(f"python {platform.python_version()} on {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs")
    print(f"columns: {', '.join(columns)}; medians of {rounds} interleaved rounds")
    print(f"{'models':>7} {'command':<18} {'column':<6} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'load avg':>16}")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "project"
            generate(root, size)
            for command in ours_argv("streamt"):
                results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in columns}
                load_before = os.getloadavg()[0]
                for round_ in range(rounds):
                    for name, argvs in columns.items():
                        argv = argvs[command](root, Path(tmp) / f"out-{name}-{round_}")
                        if argv is not None:
                            results[name].append(run_once(argv))
                load = f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
                for name, runs in results.items():
                    if not runs:
                        continue
                    wall, cpu, peak = (statistics.median(r[i] for r in runs) for i in range(3))
                    print(f"{size:>7} {command:<18} {name:<6} {wall:>8.2f} {cpu:>8.2f} {peak:>8.1f} {load:>16}")
                sys.stdout.flush()


if __name__ == "__main__":
    args = sys.argv[1:]
    rounds, bases, sizes = 3, [], []
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            rounds = int(args.pop(0))
        elif arg == "--base":
            bases.append(args.pop(0))
        else:
            sizes.append(int(arg))
    main(sizes or [100, 1000, 5000, 10000], rounds, bases)
